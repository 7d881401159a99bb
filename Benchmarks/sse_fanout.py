#!/usr/bin/env python3
"""Server-Sent Events fan-out: events per second the mock delivers to many concurrent
clients of an endless stream, and the memory each client costs.

    python3 Benchmarks/sse_fanout.py [BINARY] [--clients 1000] [--interval-ms 50] [--seconds 10] [--report FILE]

BINARY defaults to .build/release/mock-server (Benchmarks/run.sh builds it). The mock plays a ticker (each
client its own stream: one event of 64 bytes of data every INTERVAL ms, numbered), on one
core (taskset), with the clients on the other: one asyncio process holding every
connection, reading every byte and counting the events (a complete `data:` line each).
After all are connected and a warm-up of 2 s, it counts for SECONDS:

- how long the clients took to join (50 at a time);
- events/s delivered, all clients together, against what the streams ask for (CLIENTS x
  1000 / INTERVAL), and the slowest client's share (a stream starved by the others shows);
- events per CPU second of the mock (user + system, from /proc): the work, whatever the
  machine's load;
- RSS: before any client, with every client streaming (the peak while counting), and the
  difference divided by CLIENTS: what one more streaming client costs (its connection, its
  stream's player, its journal entry and transcript, up to their caps);
- after the clients go, the connections the mock still holds (none should be).
"""
import argparse, asyncio, json, os, resource, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def client(port, counts, index, ready, stop):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /ticker HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"client {index}: {head[:60]!r}")
    ready.append(index)
    carry = b""
    while not stop.is_set():
        data = await reader.read(65536)
        if not data:
            raise RuntimeError(f"client {index}: the server closed the stream")
        # Whole lines only (a read can end mid-line; the rest waits for the next): an event is
        # a line that starts `data: `; chunk sizes sit between events on lines of their own.
        data = carry + data
        end = data.rfind(b"\n") + 1
        lines, carry = data[:end], data[end:]
        counts[index] += lines.count(b"\ndata: ") + (1 if lines.startswith(b"data: ") else 0)
    writer.close()


async def run(port, clients, seconds, pid):
    counts = [0] * clients
    ready = []
    stop = asyncio.Event()
    tasks = []
    # Clients join 50 at a time, each batch once the one before has its heads: the figures
    # are for streams that run, not for a storm of connections (whose SYNs past the listen
    # backlog the kernel retries 1, 3, 7 s later).
    waited = time.time()
    for index in range(clients):
        tasks.append(asyncio.create_task(client(port, counts, index, ready, stop)))
        if index % 50 != 49 and index != clients - 1:
            continue
        while len(ready) < len(tasks):
            failed = [task for task in tasks if task.done() and task.exception()]
            if failed:
                raise failed[0].exception()
            if time.time() - waited > 60:
                raise RuntimeError(f"{len(tasks) - len(ready)} of {len(tasks)} clients got no answer's head in 60 s")
            await asyncio.sleep(0.02)
    await asyncio.sleep(2)
    joined = time.time() - waited
    start_counts, start_cpu, start = list(counts), cpu_seconds(pid), time.time()
    peak = 0
    while time.time() - start < seconds:
        await asyncio.sleep(0.5)
        peak = max(peak, rss_kb(pid))
    elapsed = time.time() - start
    delivered = [now - before for now, before in zip(counts, start_counts)]
    cpu = cpu_seconds(pid) - start_cpu
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return delivered, elapsed, cpu, peak, joined


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/release/mock-server"))
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--interval-ms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--report")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.clients + 256)), hard))

    folder = tempfile.mkdtemp(prefix="sse-fanout-")
    scenario = os.path.join(folder, "fanout.json")
    with open(scenario, "w") as file:
        json.dump({"version": 1, "name": "fanout", "rules": [
            {"name": "ticker", "request": {"method": "GET", "path": "/ticker"},
             "response": {"eventStream": {"repeat": "forever", "autoIds": True,
                                          "events": [{"data": "x" * 64, "delay": args.interval_ms}]}}}]}, file)
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") and os.cpu_count() > 1 else []
    server = subprocess.Popen(pin + [args.binary, "--port", "0", "--log-level", "warning", "--scenario", scenario,
                                     "--max-connections", str(args.clients + 100)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline().strip()
        if not line.startswith("Listening on "):
            sys.exit(f"sse_fanout: the mock did not start: {line!r}")
        port = int(line.rsplit(":", 1)[1])
        if pin:
            os.sched_setaffinity(0, {1})
        time.sleep(1)
        before = rss_kb(server.pid)
        delivered, elapsed, cpu, peak, joined = asyncio.run(run(port, args.clients, args.seconds, server.pid))
        time.sleep(2)
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/__admin/info")
        still_open = json.loads(connection.getresponse().read())["transport"]["connections"]["open"] - 1
        connection.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)

    total = sum(delivered)
    asked = args.clients * 1000 / args.interval_ms
    slowest = min(delivered) / elapsed if delivered else 0
    lines = [
        f"SSE fan-out (`python3 Benchmarks/sse_fanout.py --clients {args.clients} --interval-ms {args.interval_ms} "
        f"--seconds {args.seconds:.0f}`), {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}, {os.cpu_count()} cores, "
        f"binary `{os.path.relpath(args.binary, ROOT)}`:",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| clients streaming at once / time they took to join (s) | {args.clients} / {joined:.1f} |",
        f"| events/s asked for (each client one every {args.interval_ms} ms) | {asked:,.0f} |",
        f"| events/s delivered, all clients | {total / elapsed:,.0f} |",
        f"| events/s to the slowest client / asked per client | {slowest:.1f} / {1000 / args.interval_ms:.1f} |",
        f"| mock CPU while counting (s of {elapsed:.1f} s) | {cpu:.2f} |",
        f"| events per mock CPU second | {total / cpu if cpu else float('nan'):,.0f} |",
        f"| RSS before any client (MB) | {before / 1024:.1f} |",
        f"| RSS with every client streaming, peak (MB) | {peak / 1024:.1f} |",
        f"| RSS per client (KB) | {(peak - before) / args.clients:.1f} |",
        f"| connections the mock holds after the clients went | {still_open} |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(args.report, "a") as report:
            report.write(text + "\n")
    return 0 if still_open == 0 and total > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
