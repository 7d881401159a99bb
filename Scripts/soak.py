#!/usr/bin/env python3
"""Soak: the real mock-server binary under a mix of normal, scenario and hostile clients.

    python3 Scripts/soak.py BINARY [--seconds N] [--report FILE]

Bounded and self-stopping: every client runs until the deadline, all traffic goes to
127.0.0.1 on a port the server picked (port 0). Runs, in parallel threads:
  - normal clients: the Restaurant and Open Market calls under happy-path, each response
    checked (status and a complete body); every one must be served;
  - scenario clients: the shipped scenarios by X-Mock-Scenario (faults included), with
    short client timeouts: any outcome is fine, but each request is counted;
  - never-reading pipeliners: 300 requests in one write, then nothing read for 10 s;
  - slowloris: a request head one byte every 0.3 s (the server's --head-timeout is 2 s);
  - mid-body hang-ups: a head promising 1000 bytes, 10 sent, then close;
  - mid-delay hang-ups: a request under slow-3g, closed before its answer.
Checks at the end (exit 1 if any fails): the server did not crash; the journal's total
equals the requests sent (each complete request, and each slowloris head that got its
408); every normal request was served; RSS reached a plateau (the last third's peak
within 10 % of the middle third's) and stayed under 64 MB.
"""
import argparse, http.client, json, os, random, socket, subprocess, sys, tempfile, threading, time

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
    args = parser.parse_args()

    # The server's stderr goes to a file, not a pipe: a pipe nobody reads until the end
    # can fill and block the server, and a crash report is long, with its cause at the top.
    stderr_file = tempfile.NamedTemporaryFile(prefix="soak-server-", suffix=".log", delete=False)
    server = subprocess.Popen([args.binary, "--port", "0", "--log-level", "error", "--head-timeout", "2",
                               "--idle-timeout", "30", "--time-scale", "0.2", "--seed", "7"],
                              stdout=subprocess.PIPE, stderr=stderr_file, text=True)
    line = server.stdout.readline().strip()
    if not line.startswith("Listening on "):
        server.wait(timeout=10)
        print(f"soak: the server did not start: {line!r}\n{read_text(stderr_file.name)}", file=sys.stderr)
        return 1
    port = int(line.rsplit(":", 1)[1])
    counts = Counter()
    start = time.time()
    deadline = start + args.seconds
    workers = ([threading.Thread(target=normal_client, args=(port, deadline, counts, seed)) for seed in range(4)]
               + [threading.Thread(target=scenario_client, args=(port, deadline, counts, 100 + seed)) for seed in range(3)]
               + [threading.Thread(target=pipeliner, args=(port, deadline, counts)) for _ in range(2)]
               + [threading.Thread(target=slowloris, args=(port, deadline, counts)) for _ in range(2)]
               + [threading.Thread(target=mid_body, args=(port, deadline, counts)),
                  threading.Thread(target=mid_delay, args=(port, deadline, counts))])
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
    if not crashed:
        info = admin_info(port)
        total = int(info["journal"]["total"])
        server.terminate()
        server.wait(timeout=10)
    exit_status = server.returncode
    stderr_file.close()
    stderr = read_text(stderr_file.name)

    sent = counts.get("sent")
    third = max(1, len(samples) // 3)
    middle = max((rss for _, rss in samples[third:2 * third]), default=0)
    last = max((rss for _, rss in samples[2 * third:]), default=0)
    peak = max((rss for _, rss in samples), default=0)
    plateau = middle > 0 and last <= middle * 1.10
    checks = {
        "no crash, clean exit on SIGTERM": not crashed and exit_status == 0,
        "journal total equals requests sent": total == sent,
        "every normal request served": counts.get("normal_failed") == 0 and counts.get("normal_served") == counts.get("normal"),
        "RSS plateau (last third within 10 % of middle third)": plateau,
        "RSS under 64 MB": peak < 64 * 1024,
    }
    lines = [
        f"Soak of {args.seconds:.0f} s (`python3 Scripts/soak.py BINARY --seconds {args.seconds:.0f}`), "
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
        f"| RSS peak / middle third / last third (MB) | {peak / 1024:.1f} / {middle / 1024:.1f} / {last / 1024:.1f} |",
        "",
    ] + [f"- {'PASS' if ok else 'FAIL'}: {name}" for name, ok in checks.items()] + [""]
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
