"""An HTTP/2 client over raw frames (TLS from Python's ssl, header compression from the
`hpack` package on PyPI) that asks for one path with its stream window at 0, so the
server can send HEADERS but must hold the body. It opens the window only once the
server's GOAWAY arrives, reads until the connection ends, and prints what it saw as one
JSON object. Used by HTTP2Tests: a stopping server must still deliver an answer that flow
control held back (RFC 9113 6.8), not reset its stream.

Raw frames, because a full client library (hyper-h2) refuses to send anything after a
GOAWAY, and opening the window then is the point.

usage: h2_hold_window.py PORT PATH
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


port, path = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE  # the certificate is checked by the curl tests
context.set_alpn_protocols(["h2"])
sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
seen = {"alpn": sock.selected_alpn_protocol(), "status": None, "body": 0, "endStream": False,
        "reset": None, "goAway": None, "frames": []}
stream = 1
block = hpack.Encoder().encode([(":method", "GET"), (":path", path), (":scheme", "https"),
                                (":authority", f"localhost:{port}")])
sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
             + frame(SETTINGS, 0, 0, struct.pack(">HI", 0x4, 0))  # SETTINGS_INITIAL_WINDOW_SIZE = 0
             + frame(HEADERS, END_STREAM | END_HEADERS, stream, block))
decoder = hpack.Decoder()
buffer = b""
sock.settimeout(0.2)
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
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
            sock.sendall(frame(SETTINGS, ACK, 0))
        elif kind == PING and not flags & ACK:
            sock.sendall(frame(PING, ACK, 0, payload))
        elif kind == HEADERS and sid == stream:
            seen["status"] = dict(decoder.decode(payload)).get(":status")
        elif kind == DATA and sid == stream:
            seen["body"] += length
            seen["endStream"] = seen["endStream"] or bool(flags & END_STREAM)
        elif kind == RST_STREAM and sid == stream:
            code = int.from_bytes(payload[:4], "big")
            seen["reset"] = ERRORS.get(code, str(code))
        elif kind == GOAWAY:
            last, code = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big")
            seen["goAway"] = {"lastStreamID": last, "errorCode": ERRORS.get(code, str(code))}
            # Only now may the body come: open the stream's window.
            if not seen["endStream"] and seen["reset"] is None:
                try:
                    sock.sendall(frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", 1 << 20)))
                except OSError as error:
                    seen["frames"].append(f"error {error}")
print(json.dumps(seen))
