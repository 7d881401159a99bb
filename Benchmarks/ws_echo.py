#!/usr/bin/env python3
"""WebSocket echo round trips against a server, for instructions.sh --ws.

    python3 Benchmarks/ws_echo.py PORT PATH CONNECTIONS WARMUP COUNTED [CALLGRIND_PID]

Opens CONNECTIONS WebSockets on PATH (the upgrade is not counted), then each connection in
turn sends a masked text frame of 32 bytes and reads its echo, WARMUP round trips in all;
then, with CALLGRIND_PID, zeroes that process's callgrind counters (callgrind_control -z)
and makes COUNTED more. Every echo must carry the bytes sent (exit 1 otherwise). Prints
the number of counted round trips. One thread: a round trip's instructions are the
server's alone, and the client waits for each echo, as a chat client does.
"""
import base64, os, socket, subprocess, sys


def frame(payload):
    key = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def read_frame(sock, buffered):
    while True:
        if len(buffered) >= 2 and len(buffered) >= 2 + (buffered[1] & 0x7F):
            length = buffered[1] & 0x7F
            assert length < 126
            return buffered[0], buffered[2:2 + length], buffered[2 + length:]
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        buffered += chunk


def main():
    port, path, connections, warmup, counted = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    pid = sys.argv[6] if len(sys.argv) > 6 else None
    sockets = []
    for _ in range(connections):
        sock = socket.create_connection(("127.0.0.1", int(port)), timeout=120)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                sys.exit(f"ws_echo: the server closed the connection during the upgrade: {data[:80]!r}")
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            sys.exit(f"ws_echo: not upgraded: {head[:80]!r}")
        sockets.append([sock, rest])

    def rounds(count):
        for index in range(count):
            entry = sockets[index % connections]
            payload = b"echo %026d" % index
            entry[0].sendall(frame(payload))
            opcode, echoed, entry[1] = read_frame(entry[0], entry[1])
            if opcode != 0x81 or echoed != payload:
                sys.exit(f"ws_echo: round trip {index} came back as opcode {opcode:#x} {echoed!r}")

    rounds(warmup)
    if pid:
        subprocess.run(["callgrind_control", "-z", pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rounds(counted)
    print(counted)


if __name__ == "__main__":
    main()
