#!/usr/bin/env python3
"""Soak: the real mock-server binary under a mix of normal, scenario and hostile clients.

    python3 Scripts/soak.py BINARY [--seconds N] [--report FILE] [--sanitized NAME]

Bounded and self-stopping: every client runs until the deadline, all traffic goes to
127.0.0.1 on a port the server picked (port 0). Runs, in parallel threads:
  - normal clients: the Restaurant and Open Market calls under happy-path, each response
    checked (status and a complete body); every one must be served;
  - scenario clients: the shipped scenarios by X-Mock-Scenario (faults included), with
    short client timeouts: any outcome is fine, but each request is counted;
  - never-reading pipeliners: 300 requests in one write, then nothing read for 10 s;
  - slowloris: a request head one byte every 0.3 s (the server's --head-timeout is 2 s);
  - mid-body hang-ups: a head promising 1000 bytes, 10 sent, then close;
  - mid-delay hang-ups: a request under slow-3g, closed before its answer;
  - forward proxy clients (the server runs with --proxy-port 0 and a CA of its own in a
    temporary --ca-dir): normal ones through a CONNECT tunnel with TLS (trusting that CA)
    and by absolute-form requests, each answer checked; hostile ones: malformed CONNECT
    lines (400), unmapped hosts (403), a tunnel left silent (the server closes it within
    its head timeout), garbage bytes through a tunnel (400), a truncated ClientHello, and
    half a CONNECT line, each then closed;
  - WebSocket clients (a scenario of the soak's own, in a temporary --fixtures folder):
    normal ones holding a conversation to its close handshake; hostile ones sending an
    unmasked frame (1002), invalid UTF-8 (1007), a frame announcing 1 TB (1009), a new
    message inside a fragmented one (1002), a fragmented ping (1002), fragments each under
    the message limit and together over it (1009; the server runs with --max-body-size
    64 KB), a character split between fragments and not continued (1007), pings never read,
    and a half-open connection;
  - Server-Sent Events clients (a scenario of the soak's own too): normal ones reading a
    finite stream to its end (every event in order, then the connection serving on), an
    endless ticker read for a while and closed, and a reconnect with Last-Event-ID resumed
    after it; hostile ones never reading an endless stream of 8 KB events, half-open (the
    request, then the write side shut), hanging up mid-stream by a close or a reset, and
    a Last-Event-ID of garbage, of 20 KB (the stream from its start) or of 40 KB (431).
    HTTP/1.1 only, as the rest of the soak on the server's port.
Checks at the end (exit 1 if any fails): the server did not crash; the journal's total
equals the requests sent (each complete request, each CONNECT, and each slowloris head
that got its 408); every normal request, direct or proxied, was served; every hostile
proxy client got the answer it should; every WebSocket conversation was held, every hostile
WebSocket closed with its code, and none is open at the end; every SSE stream was read as
sent, every hostile SSE client answered as it should, and every event stream the journal
holds has ended; connections open went back to a few; RSS reached
a plateau (the last third's peak within 10 % of the middle third's) and stayed under
64 MB; the server's stderr holds no sanitizer report.

--sanitized NAME: the binary is built with a sanitizer (thread, address). Its shadow
memory and quarantine make RSS say nothing about ours, so the RSS figures are shown and
not judged; everything else is.
"""
import argparse, http.client, json, os, random, shutil, socket, ssl, subprocess, sys, tempfile, threading, time

SCENARIO_MIX = ["flaky", "server-errors", "rate-limited", "slow-images", "large-catalog", "empty-catalog",
                "malformed-json", "order-fails-then-succeeds", "image-failures", "connection-reset",
                "truncated-body", "malformed-http", "hang", "slow-3g"]
NORMAL_CALLS = [("GET", "/categories", None), ("GET", "/menu?category=entrees", None), ("GET", "/images/1.png", None),
                ("POST", "/order", b'{"menuIds":[1,1,5]}'), ("GET", "/api/products?page_no=1&items_per_page=20", None),
                ("GET", "/api/products/1", None), ("GET", "/menu", None)]


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.values = {}

    def add(self, key, amount=1):
        with self.lock:
            self.values[key] = self.values.get(key, 0) + amount

    def get(self, key):
        with self.lock:
            return self.values.get(key, 0)


def read_text(path):
    with open(path, errors="replace") as file:
        return file.read()


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def normal_client(port, deadline, counts, seed):
    rng = random.Random(seed)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    while time.time() < deadline:
        method, path, body = rng.choice(NORMAL_CALLS)
        headers = {"Content-Type": "application/json"} if body else {}
        counts.add("sent")
        counts.add("normal")
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            if response.status // 100 == 2 and (data or method == "HEAD"):
                counts.add("normal_served")
            else:
                counts.add("normal_failed")
                print(f"normal client: {method} {path} -> {response.status}", file=sys.stderr)
        except Exception as error:  # a normal client must never see a network error
            counts.add("normal_failed")
            print(f"normal client: {method} {path}: {error!r}", file=sys.stderr)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)


def scenario_client(port, deadline, counts, seed):
    rng = random.Random(seed)
    while time.time() < deadline:
        scenario = rng.choice(SCENARIO_MIX)
        method, path, body = rng.choice(NORMAL_CALLS)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        headers = {"X-Mock-Scenario": scenario, "Connection": "close"}
        if body:
            headers["Content-Type"] = "application/json"
        counts.add("sent")
        try:
            connection.request(method, path, body=body, headers=headers)
            connection.getresponse().read()
            counts.add("scenario_answered")
        except Exception:
            counts.add("scenario_faulted")  # resets, truncations, hangs: what the scenario asked for
        finally:
            connection.close()


def pipeliner(port, deadline, counts):
    request = b"GET /menu HTTP/1.1\r\nHost: soak\r\n\r\n"
    while time.time() < deadline:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(request * 300)
            counts.add("sent", 300)
            counts.add("pipelined", 300)
            end = min(deadline, time.time() + 10)
            while time.time() < end:
                time.sleep(0.2)
        # Closing with answers unread: the server journals what it had not answered as 499.


def slowloris(port, deadline, counts):
    head = b"GET /categories HTTP/1.1\r\nHost: soak\r\nX-Slow: " + b"s" * 200
    while time.time() < deadline - 3:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.settimeout(0.3)
            answered = False
            for byte in head:
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    break
                try:
                    if sock.recv(4096):
                        answered = True
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
            if not answered:
                sock.settimeout(5)
                try:
                    answered = bool(sock.recv(4096))
                except OSError:
                    pass
            if answered:
                counts.add("sent")       # the partial head, journaled with its 408
                counts.add("slowloris_408")


def mid_body(port, deadline, counts):
    while time.time() < deadline:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"POST /order HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"menuIds\"")
            counts.add("sent")           # journaled as 499 when the connection closes
            counts.add("mid_body")
            time.sleep(0.05)
        time.sleep(0.05)


def mid_delay(port, deadline, counts):
    while time.time() < deadline:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(b"GET /menu HTTP/1.1\r\nHost: soak\r\nX-Mock-Scenario: slow-3g\r\n\r\n")
            counts.add("sent")           # journaled when the engine answers, before the delay
            counts.add("mid_delay")
            time.sleep(0.1)
        time.sleep(0.05)


MAPPED_TLS_HOST = "market-training.yagom-academy.kr"
MAPPED_HTTP_HOST = "openmarket.yagom-academy.kr"
PROXY_PAGE = "/api/products?page_no=1&items_per_page=2"
HEAD_TIMEOUT = 2.0   # the server's --head-timeout


def read_head(sock, limit=65536):
    """The bytes up to the end of a response head (or what came before the peer closed)."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < limit:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def read_response(sock):
    """(status, body) of one response with a Content-Length, or (None, bytes seen)."""
    data = read_head(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    try:
        status = int(lines[0].split(b" ")[1])
    except (IndexError, ValueError):
        return None, data
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, body


def has_reason(body):
    try:
        return isinstance(json.loads(body).get("reason"), str)
    except (ValueError, AttributeError):
        return False


def connect_line(target):
    return f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode()


def proxy_tls_client(proxy_port, deadline, counts, ca_file):
    """CONNECT to a mapped host, TLS trusting the server's CA, then keep-alive GETs through
    the tunnel; a new tunnel every 20 requests. Every answer must be a 200 with a page."""
    context = ssl.create_default_context(cafile=ca_file)
    while time.time() < deadline:
        connection = http.client.HTTPSConnection("127.0.0.1", proxy_port, timeout=15, context=context)
        connection.set_tunnel(MAPPED_TLS_HOST, 443)
        counts.add("sent")   # the CONNECT, journaled as proxy.connect
        counts.add("proxy_tunnels")
        try:
            for _ in range(20):
                if time.time() >= deadline:
                    break
                counts.add("sent")
                counts.add("proxy_normal")
                connection.request("GET", PROXY_PAGE, headers={"Host": MAPPED_TLS_HOST})
                response = connection.getresponse()
                data = response.read()
                if response.status == 200 and b'"pages"' in data:
                    counts.add("proxy_normal_served")
                else:
                    counts.add("proxy_normal_failed")
                    print(f"proxy TLS client: {response.status} {data[:200]!r}", file=sys.stderr)
        except Exception as error:
            counts.add("proxy_normal_failed")
            print(f"proxy TLS client: {error!r}", file=sys.stderr)
        finally:
            connection.close()


def proxy_absolute_client(proxy_port, deadline, counts):
    """Absolute-form GETs to a mapped host on one keep-alive connection to the proxy."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=15)
    while time.time() < deadline:
        counts.add("sent")
        counts.add("proxy_normal")
        try:
            connection.request("GET", f"http://{MAPPED_HTTP_HOST}{PROXY_PAGE}", headers={"Host": MAPPED_HTTP_HOST})
            response = connection.getresponse()
            data = response.read()
            if response.status == 200 and b'"pages"' in data:
                counts.add("proxy_normal_served")
            else:
                counts.add("proxy_normal_failed")
                print(f"proxy absolute-form client: {response.status} {data[:200]!r}", file=sys.stderr)
        except Exception as error:
            counts.add("proxy_normal_failed")
            print(f"proxy absolute-form client: {error!r}", file=sys.stderr)
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", proxy_port, timeout=15)


MALFORMED_PROXY_REQUESTS = [connect_line("example.com"), connect_line("example.com:0"), connect_line("example.com:99999"),
                            connect_line("[::1:443"), connect_line("exa$mple.com:443"), connect_line(":443"),
                            b"GET http:///menu HTTP/1.1\r\nHost: x\r\n\r\n"]
UNMAPPED_PROXY_REQUESTS = [connect_line("example.com:443"), connect_line("[::1]:443"),
                           b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",
                           f"GET http://{MAPPED_HTTP_HOST}@example.com/ HTTP/1.1\r\nHost: x\r\n\r\n".encode()]


def client_hello():
    """The first flight of a real TLS client to the mapped host: its ClientHello record."""
    context = ssl.create_default_context()
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname=MAPPED_TLS_HOST)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def proxy_hostile(proxy_port, deadline, counts, seed):
    """Each turn, one misbehaving proxy client; what the server must answer is checked."""
    rng = random.Random(seed)
    hello = client_hello()

    def unexpected(kind, detail):
        counts.add("proxy_hostile_unexpected")
        print(f"hostile proxy client ({kind}): {detail}", file=sys.stderr)

    def tunnel(sock, kind):
        sock.sendall(connect_line(f"{MAPPED_TLS_HOST}:443"))
        counts.add("sent")   # the CONNECT
        established = read_head(sock)
        if not established.startswith(b"HTTP/1.1 200"):
            unexpected(kind, f"CONNECT got {established[:60]!r}")
            return False
        return True

    while time.time() < deadline:
        kind = rng.choice(["malformed", "unmapped", "garbage", "truncated-hello", "half-line"])
        try:
            with socket.create_connection(("127.0.0.1", proxy_port), timeout=10) as sock:
                if kind in ("malformed", "unmapped"):
                    request = rng.choice(MALFORMED_PROXY_REQUESTS if kind == "malformed" else UNMAPPED_PROXY_REQUESTS)
                    sock.sendall(request)
                    counts.add("sent")
                    status, body = read_response(sock)
                    want = 400 if kind == "malformed" else 403
                    if status != want or not has_reason(body):
                        unexpected(kind, f"{request[:50]!r} got {status} {body[:120]!r}")
                elif kind == "garbage":
                    if tunnel(sock, kind):
                        sock.sendall(b"\x00\x01\x02 not TLS, not HTTP\r\n\r\n")
                        counts.add("sent")   # journaled as malformed HTTP
                        status, body = read_response(sock)
                        if status != 400 or not has_reason(body):
                            unexpected(kind, f"got {status} {body[:120]!r}")
                elif kind == "truncated-hello":
                    if tunnel(sock, kind):
                        sock.sendall(hello[:len(hello) // 2])
                elif kind == "half-line":
                    sock.sendall(b"CONNECT " + MAPPED_TLS_HOST.encode()[:12])
                    counts.add("sent")   # a head cut by the close: journaled as malformed HTTP
            counts.add(f"proxy_hostile_{kind}")
        except Exception as error:
            unexpected(kind, repr(error))
        time.sleep(0.02)


def proxy_silent(proxy_port, deadline, counts, close_delays):
    """A tunnel opened and never spoken in: the server must close it within its head timeout."""
    while time.time() < deadline - HEAD_TIMEOUT - 1:
        try:
            with socket.create_connection(("127.0.0.1", proxy_port), timeout=HEAD_TIMEOUT + 5) as sock:
                sock.sendall(connect_line(f"{MAPPED_TLS_HOST}:443"))
                counts.add("sent")
                established = read_head(sock)
                opened = time.time()
                if not established.startswith(b"HTTP/1.1 200"):
                    counts.add("proxy_hostile_unexpected")
                    print(f"silent proxy client: CONNECT got {established[:60]!r}", file=sys.stderr)
                    continue
                rest = sock.recv(4096)
                close_delays.append(time.time() - opened)
                if rest:
                    counts.add("proxy_hostile_unexpected")
                    print(f"silent proxy client: the server wrote {rest[:60]!r} into a silent tunnel", file=sys.stderr)
                counts.add("proxy_hostile_silent")
        except socket.timeout:
            counts.add("proxy_hostile_unexpected")
            close_delays.append(HEAD_TIMEOUT + 5)
            print("silent proxy client: the server kept a silent tunnel open", file=sys.stderr)


# WebSockets: a scenario file of the soak's own (in a temporary --fixtures folder beside
# copies of the built-in fixture sets) makes /ws/chat a WebSocket: a greeting, an echo,
# bytes answered with bytes, and a push every second.
WS_SCENARIO = {
    "version": 1, "name": "soak-sockets", "description": "WebSockets for the soak",
    "rules": [{"name": "chat", "request": {"method": "GET", "path": "/ws/chat"},
               "response": {"webSocket": {
                   "onConnect": [{"text": "welcome"}],
                   "onMessage": [{"name": "echo", "match": {"type": "text"}, "reply": [{"text": "echo"}]},
                                 {"name": "bytes", "match": {"type": "binary"}, "reply": [{"binary": "AQID"}]}],
                   "pushes": [{"every": 1000, "messages": [{"text": "tick"}]}]}}}],
}
WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
WS_ACCEPT = b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="


def ws_frame(opcode, payload, fin=True, masked=True, length=None):
    """A client's frame; `length` announces another length than the payload's."""
    size = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if masked else 0
    if size < 126:
        head += bytes([mask_bit | size])
    elif size < 65536:
        head += bytes([mask_bit | 126]) + size.to_bytes(2, "big")
    else:
        head += bytes([mask_bit | 127]) + size.to_bytes(8, "big")
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(byte ^ key[index % 4] for index, byte in enumerate(payload))


def ws_open(port):
    """A socket upgraded to a WebSocket on /ws/chat, or None when the server did not upgrade."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(("GET /ws/chat HTTP/1.1\r\nHost: soak\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {WS_KEY}\r\nSec-WebSocket-Version: 13\r\n"
                  "X-Mock-Scenario: soak-sockets\r\n\r\n").encode())
    head = read_head(sock)
    if not head.startswith(b"HTTP/1.1 101 ") or WS_ACCEPT not in head:
        sock.close()
        return None, b""
    return sock, head.partition(b"\r\n\r\n")[2]


def ws_read(sock, buffered):
    """(opcode, payload, rest) of the next server frame; opcode None when the server closed."""
    data = buffered
    while True:
        if len(data) >= 2:
            length, at = data[1] & 0x7F, 2
            if length == 126 and len(data) >= 4:
                length, at = int.from_bytes(data[2:4], "big"), 4
            elif length == 127 and len(data) >= 10:
                length, at = int.from_bytes(data[2:10], "big"), 10
            if length < 126 or at > 2:
                if len(data) >= at + length:
                    return data[0] & 0x0F, data[at:at + length], data[at + length:]
        chunk = sock.recv(65536)
        if not chunk:
            return None, b"", b""
        data += chunk


def ws_until(sock, buffered, opcodes):
    """Reads frames until one of `opcodes` (pushes come between): (opcode, payload)."""
    while True:
        opcode, payload, buffered = ws_read(sock, buffered)
        if opcode is None or opcode in opcodes:
            return opcode, payload, buffered


def ws_client(port, deadline, counts):
    """A well-behaved client: greeting, a text echoed, bytes answered, then the close handshake."""
    while time.time() < deadline:
        counts.add("sent")
        counts.add("ws_normal")
        try:
            sock, buffered = ws_open(port)
            if sock is None:
                counts.add("ws_normal_failed")
                continue
            with sock:
                opcode, payload, buffered = ws_read(sock, buffered)
                ok = opcode == 0x1 and payload == b"welcome"
                sock.sendall(ws_frame(0x1, b"hello"))
                opcode, payload, buffered = ws_until(sock, buffered, {0x1}) if ok else (None, b"", b"")
                while ok and payload == b"tick":
                    opcode, payload, buffered = ws_until(sock, buffered, {0x1})
                ok = ok and payload == b"echo"
                sock.sendall(ws_frame(0x2, b"\x00\x01"))
                opcode, payload, buffered = ws_until(sock, buffered, {0x2}) if ok else (None, b"", b"")
                ok = ok and payload == b"\x01\x02\x03"
                sock.sendall(ws_frame(0x8, (1000).to_bytes(2, "big")))
                opcode, payload, buffered = ws_until(sock, buffered, {0x8})
                ok = ok and opcode == 0x8 and payload[:2] == (1000).to_bytes(2, "big")
                ok = ok and sock.recv(1) == b""   # the server closes the TCP connection after the handshake
                counts.add("ws_normal_served" if ok else "ws_normal_failed")
                if not ok:
                    print(f"websocket client: the conversation went otherwise (last frame {opcode})", file=sys.stderr)
        except Exception as error:
            counts.add("ws_normal_failed")
            print(f"websocket client: {error!r}", file=sys.stderr)


# Hostile WebSocket clients and the close code each must get (None: the connection just closes).
WS_HOSTILE = {
    "unmasked": (lambda: ws_frame(0x1, b"hi", masked=False), 1002),
    "invalid-utf8": (lambda: ws_frame(0x1, b"\x68\xc3\x28"), 1007),
    "oversized": (lambda: ws_frame(0x2, b"", length=1 << 40), 1009),
    "fragmented": (lambda: b"".join(ws_frame(0x1 if index == 0 else 0x0, b"x" * 100, fin=False) for index in range(200))
                   + ws_frame(0x1, b"a new message inside the fragmented one"), 1002),
    # A control frame may not be fragmented (RFC 6455, 5.5).
    "fragmented-ping": (lambda: ws_frame(0x9, b"ping", fin=False), 1002),
    # Fragments each under the limit, together over it (the soak's --max-body-size).
    "fragmented-oversized": (lambda: ws_frame(0x1, b"x" * (WS_LIMIT // 2 + 1), fin=False)
                             + ws_frame(0x0, b"x" * (WS_LIMIT // 2 + 1), fin=False), 1009),
    # A character split between two fragments, then bytes that cannot continue it.
    "fragmented-invalid-utf8": (lambda: ws_frame(0x1, b"caf\xc3", fin=False) + ws_frame(0x0, b"\x28 bad"), 1007),
}
WS_LIMIT = 64 * 1024   # the soak server's --max-body-size: a WebSocket message's limit too


def ws_hostile(port, deadline, counts, seed):
    rng = random.Random(seed)
    while time.time() < deadline:
        kind = rng.choice(list(WS_HOSTILE) + ["never-reading", "half-open"])
        counts.add("sent")
        counts.add("ws_hostile_" + kind)
        try:
            sock, buffered = ws_open(port)
            if sock is None:
                counts.add("ws_hostile_unexpected")
                continue
            with sock:
                if kind == "never-reading":
                    # Pings and messages whose answers are never read, then silence: the server
                    # holds a bounded amount for it, or drops it.
                    end = min(deadline, time.time() + 5)
                    while time.time() < end:
                        try:
                            sock.sendall(ws_frame(0x9, b"p" * 100) * 10)
                        except OSError:
                            break
                        time.sleep(0.1)
                    continue
                if kind == "half-open":
                    sock.shutdown(socket.SHUT_WR)
                    opcode, _, buffered = ws_until(sock, buffered, set())
                    if opcode is not None:
                        counts.add("ws_hostile_unexpected")
                    continue
                make, code = WS_HOSTILE[kind]
                sock.sendall(make())
                opcode, payload, _ = ws_until(sock, buffered, {0x8})
                if opcode != 0x8 or int.from_bytes(payload[:2], "big") != code or sock.recv(1) != b"":
                    counts.add("ws_hostile_unexpected")
                    print(f"websocket hostile {kind}: close {payload[:2].hex() if opcode == 0x8 else opcode}", file=sys.stderr)
        except OSError as error:
            if kind != "never-reading":
                counts.add("ws_hostile_unexpected")
                print(f"websocket hostile {kind}: {error!r}", file=sys.stderr)


# Server-Sent Events: a scenario of the soak's own beside the WebSocket one. /sse/feed is a
# finite stream (its events text on two lines, JSON, and a comment), /sse/ticker an endless
# one with numbered events, /sse/flood an endless one of 8 KB events for clients that never
# read. Delays are before the server's --time-scale (0.2).
SSE_FEED_EVENTS = 20
SSE_SCENARIO = {
    "version": 1, "name": "soak-events", "description": "Server-Sent Events for the soak",
    "rules": [
        {"name": "feed", "request": {"method": "GET", "path": "/sse/feed"},
         "response": {"eventStream": {"autoIds": True, "events": [
             {"data": "line one\nline two", "event": "text", "delay": 50},
             {"json": {"n": 1, "text": "héllo"}, "event": "json", "delay": 50},
             {"comment": "keep-alive", "delay": 50},
             {"data": "last of the round", "retry": 1000, "delay": 50}],
             "repeat": SSE_FEED_EVENTS // 4}}},
        {"name": "ticker", "request": {"method": "GET", "path": "/sse/ticker"},
         "response": {"eventStream": {"autoIds": True, "repeat": "forever",
                                      "events": [{"data": "tick", "event": "tick", "delay": 100}]}}},
        {"name": "flood", "request": {"method": "GET", "path": "/sse/flood"},
         "response": {"eventStream": {"repeat": "forever", "events": [{"data": "x" * 8192, "delay": 5}]}}},
    ],
}


def sse_open(port, path, extra=b""):
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: soak\r\nAccept: text/event-stream\r\nX-Mock-Scenario: soak-events\r\n".encode()
                 + extra + b"\r\n")
    return sock


class SSEReader:
    """Reads a chunked text/event-stream answer from a socket: the head, then whole events
    (the fields of each, as a client's parser keeps them: data lines joined with LF)."""

    def __init__(self, sock):
        self.sock = sock
        self.raw = b""       # bytes read, not yet de-chunked
        self.body = b""      # de-chunked bytes not yet split into events
        self.ended = False   # the last chunk came
        self.head = None

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.raw += chunk

    def read_head(self):
        while b"\r\n\r\n" not in self.raw:
            self._fill()
        self.head, _, self.raw = self.raw.partition(b"\r\n\r\n")
        return self.head

    def _dechunk(self):
        while not self.ended:
            line, crlf, rest = self.raw.partition(b"\r\n")
            if not crlf:
                return
            size = int(line, 16)
            if len(rest) < size + 2:
                return
            if rest[size:size + 2] != b"\r\n":
                raise ValueError("a chunk not followed by CR LF")
            self.body += rest[:size]
            self.raw = rest[size + 2:]
            if size == 0:
                self.ended = True

    def next_event(self):
        """The next event's fields (a dict; `data` joined), or None once the stream ended."""
        while True:
            self._dechunk()
            block, blank, rest = self.body.partition(b"\n\n")
            if blank:
                self.body = rest
                fields = {}
                for line in block.split(b"\n"):
                    if line.startswith(b":"):
                        fields.setdefault("comment", line[1:].strip().decode())
                        continue
                    name, _, value = line.decode().partition(": ")
                    fields[name] = fields[name] + "\n" + value if name == "data" and name in fields else value
                return fields
            if self.ended:
                if self.body:
                    raise ValueError(f"the stream ended inside an event: {self.body[:60]!r}")
                return None
            self._fill()


def sse_client(port, deadline, counts, seed):
    """Well-behaved SSE clients, in turn: the finite feed read to its end (every event, in
    order, the stream's end, and the connection serving on); the ticker read for a while,
    then closed; a reconnect with the Last-Event-ID it last saw, resumed after it."""
    rng = random.Random(seed)
    last_id = None
    while time.time() < deadline:
        kind = rng.choice(["feed", "ticker", "resume"] if last_id else ["feed", "ticker"])
        counts.add("sent")
        counts.add("sse_normal")
        try:
            if kind == "feed":
                with sse_open(port, "/sse/feed") as sock:
                    reader = SSEReader(sock)
                    head = reader.read_head()
                    ok = head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head.lower()
                    events = []
                    while ok:
                        event = reader.next_event()
                        if event is None:
                            break
                        events.append(event)
                    ids = [event.get("id") for event in events]
                    ok = ok and ids == [str(n) for n in range(1, SSE_FEED_EVENTS + 1)]
                    ok = ok and events[0].get("data") == "line one\nline two" and json.loads(events[1]["data"]) == {"n": 1, "text": "héllo"}
                    # The connection serves on after the stream's end.
                    counts.add("sent")
                    sock.sendall(b"GET /menu HTTP/1.1\r\nHost: soak\r\nConnection: close\r\n\r\n")
                    while ok and b"\r\n\r\n" not in reader.raw:
                        reader._fill()
                    ok = ok and reader.raw.startswith(b"HTTP/1.1 200")
            else:
                with sse_open(port, "/sse/ticker", f"Last-Event-ID: {last_id}\r\n".encode() if kind == "resume" else b"") as sock:
                    reader = SSEReader(sock)
                    ok = reader.read_head().startswith(b"HTTP/1.1 200")
                    first = reader.next_event() if ok else None
                    ok = ok and first is not None and first.get("data") == "tick"
                    if ok and kind == "resume":
                        ok = first.get("id") == str(int(last_id) + 1)
                    for _ in range(rng.randint(3, 20)):
                        if not ok:
                            break
                        event = reader.next_event()
                        ok = event is not None and event.get("data") == "tick"
                        if ok:
                            last_id = event.get("id")
            counts.add("sse_normal_served" if ok else "sse_normal_failed")
            counts.add("sse_normal_" + kind)
            if not ok:
                print(f"sse client {kind}: the stream went otherwise", file=sys.stderr)
        except Exception as error:
            counts.add("sse_normal_failed")
            print(f"sse client {kind}: {error!r}", file=sys.stderr)


def sse_hostile(port, deadline, counts, seed):
    """Hostile SSE clients: one that never reads an endless stream of 8 KB events (the
    server holds a bounded amount for it); half-open (the request, then the write side shut:
    the server ends the stream and closes); a hang-up mid-stream, by a close or a reset; a
    Last-Event-ID of garbage or of 20 KB (the stream starts from its first event), and one
    of 40 KB (over the head limit: 431 with a JSON reason)."""
    rng = random.Random(seed)
    kinds = ["never-reading", "half-open", "hang-up", "reset", "garbage-id", "huge-id", "oversized-id"]
    while time.time() < deadline:
        kind = rng.choice(kinds)
        counts.add("sent")
        counts.add("sse_hostile_" + kind)
        try:
            if kind == "never-reading":
                with sse_open(port, "/sse/flood") as sock:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    end = min(deadline, time.time() + 5)
                    while time.time() < end:
                        time.sleep(0.2)
                continue
            if kind == "half-open":
                with sse_open(port, "/sse/ticker") as sock:
                    sock.shutdown(socket.SHUT_WR)
                    sock.settimeout(HEAD_TIMEOUT + 8)
                    while sock.recv(65536):
                        pass   # whatever the server wrote before it saw the half-close, then its close
                continue
            if kind in ("hang-up", "reset"):
                sock = sse_open(port, "/sse/ticker")
                reader = SSEReader(sock)
                reader.read_head()
                for _ in range(rng.randint(1, 5)):
                    reader.next_event()
                if kind == "reset":
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, (1).to_bytes(4, "little") + (0).to_bytes(4, "little"))
                sock.close()
                continue
            if kind == "garbage-id":
                value = "".join(rng.choice("abc123!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ ") for _ in range(rng.randint(1, 200))).strip() or "x"
            else:
                value = "9" * (20 * 1024 if kind == "huge-id" else 40 * 1024)
            with sse_open(port, "/sse/feed", f"Last-Event-ID: {value}\r\n".encode()) as sock:
                reader = SSEReader(sock)
                head = reader.read_head()
                if kind == "oversized-id":
                    status, body = read_response_after(reader)
                    ok = head.startswith(b"HTTP/1.1 431") and has_reason(body)
                else:
                    first = reader.next_event() if head.startswith(b"HTTP/1.1 200") else None
                    ok = first is not None and first.get("id") == "1"
            if not ok:
                counts.add("sse_hostile_unexpected")
                print(f"sse hostile {kind}: answered otherwise ({head[:40]!r})", file=sys.stderr)
        except (OSError, EOFError, ValueError) as error:
            counts.add("sse_hostile_unexpected")
            print(f"sse hostile {kind}: {error!r}", file=sys.stderr)


def read_response_after(reader):
    """(head, body) of an answer with a Content-Length whose head `reader` has read."""
    length = 0
    for line in reader.head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(reader.raw) < length:
        reader._fill()
    return reader.head, reader.raw[:length]


def admin_streams(port):
    """The journal's event stream entries (the soak's paths): (entries, entries not ended)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    connection.request("GET", "/__admin/requests?path=/sse/*&limit=10000")
    listed = json.loads(connection.getresponse().read())["requests"]
    connection.close()
    streams = [entry for entry in listed if "stream" in entry]
    return len(streams), [entry for entry in streams if "ended" not in entry["stream"]]


def soak_fixtures():
    """A --fixtures folder: the built-in sets (linked) and the soak's WebSocket scenario."""
    folder = tempfile.mkdtemp(prefix="soak-fixtures-")
    built_in = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures")
    for name in ("restaurant", "openmarket"):
        os.symlink(os.path.abspath(os.path.join(built_in, name)), os.path.join(folder, name))
    os.mkdir(os.path.join(folder, "scenarios"))
    with open(os.path.join(folder, "scenarios", "soak-sockets.json"), "w") as file:
        json.dump(WS_SCENARIO, file)
    with open(os.path.join(folder, "scenarios", "soak-events.json"), "w") as file:
        json.dump(SSE_SCENARIO, file)
    return folder


def admin_sockets(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/__admin/sockets")
    return json.loads(connection.getresponse().read())


def admin_info(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    connection.request("GET", "/__admin/info")
    info = json.loads(connection.getresponse().read())
    connection.close()
    return info


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--report")
    parser.add_argument("--sanitized", metavar="NAME", help="the binary's sanitizer (thread, address): RSS is shown, not judged")
    args = parser.parse_args()

    # The server's stderr goes to a file, not a pipe: a pipe nobody reads until the end
    # can fill and block the server, and a crash report is long, with its cause at the top.
    # A sanitizer writes its reports there too.
    stderr_file = tempfile.NamedTemporaryFile(prefix="soak-server-", suffix=".log", delete=False)
    ca_dir = tempfile.mkdtemp(prefix="soak-ca-")
    fixtures = soak_fixtures()
    server = subprocess.Popen([args.binary, "--port", "0", "--log-level", "error", "--head-timeout", str(int(HEAD_TIMEOUT)),
                               "--idle-timeout", "30", "--time-scale", "0.2", "--seed", "7", "--max-body-size", str(WS_LIMIT),
                               "--proxy-port", "0", "--ca-dir", ca_dir, "--fixtures", fixtures],
                              stdout=subprocess.PIPE, stderr=stderr_file, text=True)
    line = server.stdout.readline().strip()
    proxy_line = server.stdout.readline().strip() if line.startswith("Listening on ") else ""
    if not line.startswith("Listening on ") or not proxy_line.startswith("Proxying on "):
        server.kill()
        server.wait(timeout=10)
        print(f"soak: the server did not start: {line!r} {proxy_line!r}\n{read_text(stderr_file.name)}", file=sys.stderr)
        return 1
    port = int(line.rsplit(":", 1)[1])
    proxy_port = int(proxy_line.rsplit(":", 1)[1])
    ca_file = os.path.join(ca_dir, "ca.pem")
    for _ in range(100):
        if os.path.exists(ca_file):
            break
        time.sleep(0.1)
    counts = Counter()
    close_delays = []
    start = time.time()
    deadline = start + args.seconds
    workers = ([threading.Thread(target=normal_client, args=(port, deadline, counts, seed)) for seed in range(4)]
               + [threading.Thread(target=scenario_client, args=(port, deadline, counts, 100 + seed)) for seed in range(3)]
               + [threading.Thread(target=pipeliner, args=(port, deadline, counts)) for _ in range(2)]
               + [threading.Thread(target=slowloris, args=(port, deadline, counts)) for _ in range(2)]
               + [threading.Thread(target=mid_body, args=(port, deadline, counts)),
                  threading.Thread(target=mid_delay, args=(port, deadline, counts))]
               + [threading.Thread(target=proxy_tls_client, args=(proxy_port, deadline, counts, ca_file)),
                  threading.Thread(target=proxy_absolute_client, args=(proxy_port, deadline, counts)),
                  threading.Thread(target=proxy_hostile, args=(proxy_port, deadline, counts, 200)),
                  threading.Thread(target=proxy_silent, args=(proxy_port, deadline, counts, close_delays))]
               + [threading.Thread(target=ws_client, args=(port, deadline, counts)) for _ in range(2)]
               + [threading.Thread(target=ws_hostile, args=(port, deadline, counts, 300 + seed)) for seed in range(2)]
               + [threading.Thread(target=sse_client, args=(port, deadline, counts, 400 + seed)) for seed in range(3)]
               + [threading.Thread(target=sse_hostile, args=(port, deadline, counts, 500 + seed)) for seed in range(3)])
    for worker in workers:
        worker.daemon = True
        worker.start()
    samples = []
    while time.time() < deadline:
        time.sleep(1)
        rss = rss_kb(server.pid)
        if rss is not None:
            samples.append((time.time() - start, rss))
        if server.poll() is not None:
            break
    for worker in workers:
        worker.join(timeout=20)
    time.sleep(1.5)   # closes of the last hang-ups reach the journal
    crashed = server.poll() is not None
    total = None
    open_connections = None
    open_sockets = None
    sse_entries, sse_open_entries = None, None
    if not crashed:
        # Every WebSocket closed: the clients are done, so the list empties (a never-reading
        # client's socket closes when its connection does).
        for _ in range(20):
            open_sockets = int(admin_sockets(port)["open"])
            counts.add("sent")   # the admin call is journaled too
            if open_sockets == 0:
                break
            time.sleep(0.5)
        # Every event stream ended: each journal entry of one has its ending (a client's
        # close included), read before the admin calls below add to the total.
        for _ in range(20):
            sse_entries, sse_open_entries = admin_streams(port)
            counts.add("sent")
            if not sse_open_entries:
                break
            time.sleep(0.5)
        info = admin_info(port)
        total = int(info["journal"]["total"])
        # Closes the clients made reach the server's count shortly after; the admin
        # request's own connection is one of those counted.
        for _ in range(20):
            open_connections = int(info["transport"]["connections"]["open"])
            if open_connections <= 3:
                break
            time.sleep(0.5)
            info = admin_info(port)
        server.terminate()
        server.wait(timeout=30)
    exit_status = server.returncode
    stderr_file.close()
    stderr = read_text(stderr_file.name)
    shutil.rmtree(ca_dir, ignore_errors=True)
    shutil.rmtree(fixtures, ignore_errors=True)
    sanitizer_lines = [line for line in stderr.splitlines()
                       if "WARNING: ThreadSanitizer" in line or "ERROR: AddressSanitizer" in line or "ERROR: LeakSanitizer" in line]

    sent = counts.get("sent")
    third = max(1, len(samples) // 3)
    middle = max((rss for _, rss in samples[third:2 * third]), default=0)
    last = max((rss for _, rss in samples[2 * third:]), default=0)
    peak = max((rss for _, rss in samples), default=0)
    plateau = middle > 0 and last <= middle * 1.10
    slowest_close = max(close_delays, default=None)
    checks = {
        "no crash, clean exit on SIGTERM": not crashed and exit_status == 0,
        "journal total equals requests sent": total == sent,
        "every normal request served": counts.get("normal_failed") == 0 and counts.get("normal_served") == counts.get("normal"),
        "every proxied normal request served": (counts.get("proxy_normal_failed") == 0 and counts.get("proxy_normal") > 0
                                                and counts.get("proxy_normal_served") == counts.get("proxy_normal")),
        "every hostile proxy client answered as it should": counts.get("proxy_hostile_unexpected") == 0,
        "silent tunnels closed within the head timeout (+1 s)": slowest_close is not None and slowest_close <= HEAD_TIMEOUT + 1,
        "connections open at the end: 3 or fewer": open_connections is not None and open_connections <= 3,
        "every WebSocket conversation held": (counts.get("ws_normal") > 0 and counts.get("ws_normal_failed") == 0
                                              and counts.get("ws_normal_served") == counts.get("ws_normal")),
        "every hostile WebSocket client closed with its code": counts.get("ws_hostile_unexpected") == 0,
        "no WebSocket open at the end": open_sockets == 0,
        "every SSE stream read as sent": (counts.get("sse_normal") > 0 and counts.get("sse_normal_failed") == 0
                                          and counts.get("sse_normal_served") == counts.get("sse_normal")),
        "every hostile SSE client answered as it should": counts.get("sse_hostile_unexpected") == 0,
        "no event stream open at the end (each journaled stream ended)": sse_open_entries == [],
        "no sanitizer report on the server's stderr": not sanitizer_lines,
    }
    rss_checks = {
        "RSS plateau (last third within 10 % of middle third)": plateau,
        "RSS under 64 MB": peak < 64 * 1024,
    }
    if not args.sanitized:
        checks.update(rss_checks)
    lines = [
        f"Soak of {args.seconds:.0f} s (`python3 Scripts/soak.py BINARY --seconds {args.seconds:.0f}"
        f"{' --sanitized ' + args.sanitized if args.sanitized else ''}`), "
        f"{time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {os.cpu_count()} cores, binary `{args.binary}`:",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| requests sent (all clients) | {sent} |",
        f"| journal total at the end | {total} |",
        f"| entries lost | {'n/a' if total is None else sent - total} |",
        f"| normal requests / served | {counts.get('normal')} / {counts.get('normal_served')} |",
        f"| scenario requests answered / faulted as asked | {counts.get('scenario_answered')} / {counts.get('scenario_faulted')} |",
        f"| never-read pipelined requests | {counts.get('pipelined')} |",
        f"| slowloris heads answered 408 | {counts.get('slowloris_408')} |",
        f"| mid-body hang-ups | {counts.get('mid_body')} |",
        f"| mid-delay hang-ups | {counts.get('mid_delay')} |",
        f"| proxied requests (TLS tunnel and absolute-form) / served | {counts.get('proxy_normal')} / {counts.get('proxy_normal_served')} |",
        f"| TLS tunnels opened | {counts.get('proxy_tunnels')} |",
        f"| hostile proxy clients: malformed (400) / unmapped (403) / garbage in a tunnel (400) | "
        f"{counts.get('proxy_hostile_malformed')} / {counts.get('proxy_hostile_unmapped')} / {counts.get('proxy_hostile_garbage')} |",
        f"| hostile proxy clients: truncated ClientHello / half a CONNECT line | "
        f"{counts.get('proxy_hostile_truncated-hello')} / {counts.get('proxy_hostile_half-line')} |",
        f"| silent tunnels / slowest close (s, head timeout {HEAD_TIMEOUT:.0f}) | {counts.get('proxy_hostile_silent')} / "
        f"{'n/a' if slowest_close is None else f'{slowest_close:.2f}'} |",
        f"| hostile proxy clients answered otherwise | {counts.get('proxy_hostile_unexpected')} |",
        f"| WebSocket conversations / held | {counts.get('ws_normal')} / {counts.get('ws_normal_served')} |",
        f"| hostile WebSockets: unmasked (1002) / invalid UTF-8 (1007) / oversized (1009) / fragments interleaved (1002) | "
        f"{counts.get('ws_hostile_unmasked')} / {counts.get('ws_hostile_invalid-utf8')} / {counts.get('ws_hostile_oversized')} / "
        f"{counts.get('ws_hostile_fragmented')} |",
        f"| hostile WebSockets: never-reading / half-open / answered otherwise | {counts.get('ws_hostile_never-reading')} / "
        f"{counts.get('ws_hostile_half-open')} / {counts.get('ws_hostile_unexpected')} |",
        f"| hostile WebSockets: fragmented ping (1002) / fragments over the limit (1009) / UTF-8 split across fragments (1007) | "
        f"{counts.get('ws_hostile_fragmented-ping')} / {counts.get('ws_hostile_fragmented-oversized')} / "
        f"{counts.get('ws_hostile_fragmented-invalid-utf8')} |",
        f"| WebSockets open at the end | {open_sockets} |",
        f"| SSE streams: read to the end / ticker read then closed / resumed by Last-Event-ID / read as sent | "
        f"{counts.get('sse_normal_feed')} / {counts.get('sse_normal_ticker')} / {counts.get('sse_normal_resume')} / "
        f"{counts.get('sse_normal_served')} of {counts.get('sse_normal')} |",
        f"| hostile SSE: never-reading / half-open / hang-up / reset | {counts.get('sse_hostile_never-reading')} / "
        f"{counts.get('sse_hostile_half-open')} / {counts.get('sse_hostile_hang-up')} / {counts.get('sse_hostile_reset')} |",
        f"| hostile SSE: Last-Event-ID garbage / 20 KB / 40 KB (431) / answered otherwise | {counts.get('sse_hostile_garbage-id')} / "
        f"{counts.get('sse_hostile_huge-id')} / {counts.get('sse_hostile_oversized-id')} / {counts.get('sse_hostile_unexpected')} |",
        f"| event streams journaled / not ended at the end | {sse_entries} / "
        f"{'n/a' if sse_open_entries is None else len(sse_open_entries)} |",
        f"| connections open at the end | {open_connections} |",
        f"| RSS peak / middle third / last third (MB) | {peak / 1024:.1f} / {middle / 1024:.1f} / {last / 1024:.1f} |",
        f"| sanitizer reports on stderr | {len(sanitizer_lines)} |",
        "",
    ] + [f"- {'PASS' if ok else 'FAIL'}: {name}" for name, ok in checks.items()]
    if args.sanitized:
        lines += [f"- not judged ({args.sanitized} sanitizer: its shadow memory and quarantine dominate RSS): {name}"
                  for name in rss_checks]
    lines += [""]
    if sanitizer_lines:
        lines += ["Sanitizer reports (first lines):", "", "```"] + sanitizer_lines[:10] + ["```", ""]
    text = "\n".join(lines)
    print(text)
    if stderr.strip():
        # A crash report starts with the fault and the crashed thread's frames.
        shown = stderr if len(stderr) <= 16000 else stderr[:12000] + "\n[...]\n" + stderr[-2000:]
        print(f"server stderr ({len(stderr)} characters, whole in {stderr_file.name}):\n{shown}", file=sys.stderr)
    else:
        os.unlink(stderr_file.name)
    if args.report:
        with open(args.report, "a") as report:
            report.write(text + "\n")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
