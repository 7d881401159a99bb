"""A scripted conversation with a mock-server WebSocket, from Python's `websockets`
(a second real client besides SwiftNIO's). Prints what it saw as one JSON object.

    python3 websocket_chat.py ws://127.0.0.1:PORT/chat [CA-FILE]

With a wss:// URL the CA file (PEM) is the one trusted. The server's script greets with
"welcome", answers a text with "you said TEXT" and bytes with [1, 2, 3]; the test then
pushes "pushed" into the socket (`LiveSockets`), and the client closes with 1000.
"""
import asyncio
import json
import ssl
import sys
import urllib.request

from websockets.asyncio.client import connect


async def main(url, cafile):
    context = None
    if url.startswith("wss://"):
        context = ssl.create_default_context(cafile=cafile)
    seen = {}
    async with connect(url, ssl=context, open_timeout=10, close_timeout=10) as socket:
        seen["greeting"] = await asyncio.wait_for(socket.recv(), 10)
        await socket.send("hello")
        seen["reply"] = await asyncio.wait_for(socket.recv(), 10)
        await socket.send(b"\x09\x09")
        seen["bytes"] = list(await asyncio.wait_for(socket.recv(), 10))
        pong = await socket.ping(b"still there")
        await asyncio.wait_for(pong, 10)
        seen["pong"] = True
        # Pushed by the test once the server has the bytes (it may come before the pong).
        seen["pushed"] = await asyncio.wait_for(socket.recv(), 20)
        await socket.close(code=1000, reason="done")
        seen["closeCode"] = socket.close_code
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
