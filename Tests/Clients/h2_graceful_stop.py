"""An HTTP/2 client over raw frames (TLS from Python's ssl, header compression from the
`hpack` package on PyPI) for a server that stops while the client's one stream is under
way. It prints what it saw as one JSON object. Used by HTTP2Tests: a stopping server says
GOAWAY, and still finishes a stream the GOAWAY names as taken (RFC 9113 6.8).

Modes:
- `hold-window PORT PATH`: GET PATH with the stream window at 0, so the server can send
  HEADERS but must hold the body; the window opens only once the GOAWAY arrives.
- `connect PORT -`: a CONNECT stream (`:method` and `:authority`, no `:path`), which the
  server refuses with RST_STREAM; the client stops once the stream is reset.
- `body-after-goaway PORT PATH BODY READY_FILE`: POST PATH with HEADERS and the first half
  of BODY, then (once a PING round trip shows the server has read them) create
  READY_FILE and wait for the GOAWAY before sending the second half, a few bytes per
  frame, the last with END_STREAM.

Raw frames, because a full client library (hyper-h2) refuses to send anything after a
GOAWAY, and sending then is the point.
"""
import json
import socket
import ssl
import struct
import sys
import time

import hpack

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1
ERRORS = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL"}


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


mode, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
body = sys.argv[4].encode() if mode == "body-after-goaway" else b""
ready_file = sys.argv[5] if mode == "body-after-goaway" else None
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the certificate is checked by the curl tests
context.set_alpn_protocols(["h2"])
sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="localhost")
seen = {"alpn": sock.selected_alpn_protocol(), "status": None, "contentLength": None, "body": 0,
        "endStream": False, "reset": None, "goAway": None, "frames": []}


def send(data):
    """Sends `data`; a failure is reported in the JSON, not as a traceback."""
    try:
        sock.sendall(data)
    except OSError as error:
        seen["frames"].append(f"error {error}")


stream = 1
encoder = hpack.Encoder()
preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
if mode == "hold-window":
    block = encoder.encode([(":method", "GET"), (":path", path), (":scheme", "https"),
                            (":authority", f"localhost:{port}")])
    sock.sendall(preface
                 + frame(SETTINGS, 0, 0, struct.pack(">HI", 0x4, 0))  # SETTINGS_INITIAL_WINDOW_SIZE = 0
                 + frame(HEADERS, END_STREAM | END_HEADERS, stream, block))
elif mode == "connect":
    block = encoder.encode([(":method", "CONNECT"), (":authority", "localhost:443")])
    sock.sendall(preface + frame(SETTINGS, 0, 0) + frame(HEADERS, END_HEADERS, stream, block))
else:
    block = encoder.encode([(":method", "POST"), (":path", path), (":scheme", "https"),
                            (":authority", f"localhost:{port}"), ("content-type", "application/json"),
                            ("content-length", str(len(body)))])
    half = len(body) // 2
    sock.sendall(preface + frame(SETTINGS, 0, 0)
                 + frame(HEADERS, END_HEADERS, stream, block)
                 + frame(DATA, 0, stream, body[:half])
                 + frame(PING, 0, 0, b"ready..."))
decoder = hpack.Decoder()
buffer = b""
sock.settimeout(0.2)
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    if mode == "connect" and seen["reset"] is not None:
        break
    try:
        data = sock.recv(65536)
    except socket.timeout:
        continue
    except OSError as error:
        seen["frames"].append(f"error {error}")
        break
    if not data:
        seen["frames"].append("end of connection")
        break
    buffer += data
    while len(buffer) >= 9:
        length = int.from_bytes(buffer[:3], "big")
        if len(buffer) < 9 + length:
            break
        kind, flags = buffer[3], buffer[4]
        sid = int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
        payload, buffer = buffer[9:9 + length], buffer[9 + length:]
        seen["frames"].append(f"{kind}/{flags:#x}/{sid}/{length}")
        if kind == SETTINGS and not flags & ACK:
            send(frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            send(frame(PING, ACK, 0, payload))
        elif kind == PING and payload == b"ready..." and ready_file:
            open(ready_file, "w").close()  # the server has read the HEADERS and first DATA
        elif kind == HEADERS and sid == stream:
            fields = dict(decoder.decode(payload))
            seen["status"] = fields.get(":status")
            seen["contentLength"] = int(fields["content-length"]) if "content-length" in fields else None
        elif kind == DATA and sid == stream:
            seen["body"] += length
            seen["endStream"] = seen["endStream"] or bool(flags & END_STREAM)
        elif kind == RST_STREAM and sid == stream:
            code = int.from_bytes(payload[:4], "big")
            seen["reset"] = ERRORS.get(code, str(code))
        elif kind == GOAWAY:
            last, code = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big")
            seen["goAway"] = {"lastStreamID": last, "errorCode": ERRORS.get(code, str(code))}
            if mode == "hold-window" and not seen["endStream"] and seen["reset"] is None:
                # Only now may the body come: open the stream's window.
                send(frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", 1 << 20)))
            elif mode == "body-after-goaway" and seen["reset"] is None:
                # The rest of the request, on the stream the GOAWAY named as taken: a few
                # bytes per frame, each in a write of its own, so the server must keep
                # reading the stream after it was asked to stop.
                rest = body[len(body) // 2:]
                for start in range(0, len(rest), 4):
                    last = start + 4 >= len(rest)
                    send(frame(DATA, END_STREAM if last else 0, stream, rest[start:start + 4]))
                    time.sleep(0.01)
print(json.dumps(seen))
