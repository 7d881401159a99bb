#!/usr/bin/env python3
"""MockServer against nginx in the same run: the same fixture bytes on loopback, driven by
wrk, interleaved over several rounds, client and server pinned to different cores.

Run it with Benchmarks/run.sh (builds in release mode, installs wrk and nginx if missing).
It prints a table of medians and ratios to nginx, checks the targets of issues #7 and #24,
writes Benchmarks/results.md and, with --readme, the results section of README.md. It stops
by itself: every step has a time limit and the whole run has --time-limit.
`--only growth` runs only #24's growth rows (connections, the journal at its cap, 10,000
delayed responses, a catalogue of 100,000 products) and prints them.
"""
import argparse
import datetime
import http.client
import json
import os
import platform
import re
import resource
import shutil
import signal
import ssl
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TICK = os.sysconf("SC_CLK_TCK")
STARTED = []  # every process we started, stopped at exit


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- processes and /proc

def pinned(core, argv):
    return (["taskset", "-c", str(core)] + argv) if core is not None and shutil.which("taskset") else argv


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stop_all():
    for proc in STARTED:
        stop(proc)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def family(pid):
    """A process and its children (nginx's workers)."""
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    pids.append(int(entry))
            except (OSError, IndexError):
                pass
    return pids


def cpu_seconds(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime (all threads)
    return total / TICK


def rss_mb(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def http_status(port, path="/menu", timeout=1.0):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        head = s.recv(64)
    return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else 0


def wait_ready(port, deadline_seconds=20):
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        try:
            if http_status(port) == 200:
                return
        except OSError:
            pass
        time.sleep(0.0002)
    raise RuntimeError(f"nothing answered 200 on port {port} within {deadline_seconds} s")


def wait_ready_tls(base, deadline_seconds=20):
    """The first 200 over HTTPS (certificate not checked: only readiness)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(base + "/menu", timeout=1, context=context).status == 200:
                return
        except OSError:
            pass
        time.sleep(0.0002)
    raise RuntimeError(f"nothing answered 200 at {base} within {deadline_seconds} s")


# ---------------------------------------------------------------- servers

class Mock:
    name = "mock-server"

    def __init__(self, binary, core, extra=(), tls=False):
        self.port = free_port()
        self.proc = subprocess.Popen(pinned(core, [binary, "--port", str(self.port), "--log-level", "warning", *extra]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        STARTED.append(self.proc)
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        if tls:
            wait_ready_tls(self.base)
        else:
            wait_ready(self.port)
        self.pids = [self.proc.pid]


NGINX_CONF = """
daemon off;
master_process on;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
    access_log off;
{file_io}
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 10000000;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    types {{ application/json json; image/png png; image/jpeg jpg; }}
    server {{
        listen 127.0.0.1:{port};
        root {tmp}/www;
        location = /menu {{ try_files /menu.json =404; }}
        location = /api/products {{ try_files /page.json =404; }}{status}
    }}
}}
"""


# How nginx reads and sends the files: the settings that matter for small static answers,
# each measured at the start of a run (`tune_nginx`), the fastest kept for every nginx row.
# `sendfile` with `tcp_nopush` corks and uncorks the socket per reply, which costs small
# responses; `open_file_cache` saves an open and a stat per request.
NGINX_FILE_IO = {
    "sendfile on, tcp_nopush on": "    sendfile on;\n    tcp_nopush on;",
    "sendfile on, tcp_nopush off": "    sendfile on;\n    tcp_nopush off;",
    "sendfile off": "    sendfile off;",
    "sendfile on, tcp_nopush on, open_file_cache": "    sendfile on;\n    tcp_nopush on;\n    open_file_cache max=64 inactive=3600s;\n    open_file_cache_valid 3600s;",
    "sendfile on, tcp_nopush off, open_file_cache": "    sendfile on;\n    tcp_nopush off;\n    open_file_cache max=64 inactive=3600s;\n    open_file_cache_valid 3600s;",
    "sendfile off, open_file_cache": "    sendfile off;\n    open_file_cache max=64 inactive=3600s;\n    open_file_cache_valid 3600s;",
}
NGINX_BEST = ["sendfile on, tcp_nopush on"]  # replaced by tune_nginx's choice


class Nginx:
    name = "nginx"

    def __init__(self, binary, core, folder, tls=None, file_io=None, worker_connections=8192, status=False):
        self.port = free_port()
        conf = os.path.join(folder, f"nginx-{self.port}.conf")
        listen = f"listen 127.0.0.1:{self.port}"
        text = NGINX_CONF.format(tmp=folder, port=self.port, file_io=NGINX_FILE_IO[file_io or NGINX_BEST[0]],
                                 worker_connections=worker_connections,
                                 status="\n        location = /__status { stub_status; }" if status else "")
        if tls:
            # The same certificate and key as the mock; HTTP/2 by ALPN; no session cache.
            # Session tickets on: the mock's TLS library (BoringSSL) sends two after every
            # TLS 1.3 handshake and so does OpenSSL with tickets on, so both do the same
            # work (`tickets` checks it); no client here presents one back, so every new
            # connection is still a full handshake.
            text = text.replace(listen + ";", f"{listen} ssl http2;\n        ssl_certificate {tls[0]};\n"
                                f"        ssl_certificate_key {tls[1]};\n        ssl_protocols TLSv1.2 TLSv1.3;\n"
                                f"        ssl_session_cache off;\n        ssl_session_tickets on;")
        with open(conf, "w") as f:
            f.write(text)
        self.proc = subprocess.Popen(pinned(core, [binary, "-c", conf, "-p", folder]),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        STARTED.append(self.proc)
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        if tls:
            wait_ready_tls(self.base)
        else:
            wait_ready(self.port)
        self.pids = family(self.proc.pid)


def answering(server):
    """`server` once it answers `/menu` with a 200 (nio-floor prints its address first)."""
    wait_ready(server.port)
    return server


class Floor:
    """nio-floor: the least a SwiftNIO server does to answer the same bytes (one
    pre-encoded buffer per request, NIO's decoder, one event loop)."""
    name = "nio-floor"

    def __init__(self, binary, core, folder, routes, tls=None, delay=None):
        mappings = [f"{path}|{file}|{content_type}" for path, (file, content_type) in routes.items()]
        secure = ["--tls", *tls] if tls else []   # the certificate and key the mock and nginx present
        # (field, value, ms): a request whose field has that value is answered ms later.
        held = ["--delay", f"{delay[0]}={delay[1]}", str(delay[2])] if delay else []
        self.proc = subprocess.Popen(pinned(core, [binary, *secure, *held, os.path.join(folder, "www"), *mappings]),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        STARTED.append(self.proc)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("Listening on "):
            raise RuntimeError(f"nio-floor did not start: {line!r} {self.proc.stderr.read()}")
        self.base = line.removeprefix("Listening on ")
        self.port = int(self.base.rsplit(":", 1)[1])
        self.pids = [self.proc.pid]


# ---------------------------------------------------------------- wrk

UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def wrk_argv(url, connections, seconds, headers=(), timeout="5s", script=None):
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", timeout, *(["-s", script] if script else []), url]
    for header in headers:
        argv[1:1] = ["-H", header]
    return argv


def parse_wrk(out, url, connections):
    result = {"connections": connections}
    for percent, value, unit in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M):
        result[f"p{percent}"] = float(value) * UNITS[unit]
    match = re.search(r"(\d+) requests in", out)
    result["requests"] = int(match.group(1)) if match else 0
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    result["rps"] = float(match.group(1)) if match else 0.0
    match = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["errors"] = int(match.group(1)) if match else 0
    match = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    counts = tuple(map(int, match.groups())) if match else (0, 0, 0, 0)
    result["socket_errors"] = sum(counts)
    result["socket_detail"] = dict(zip(("connect", "read", "write", "timeout"), counts))
    if result["requests"] == 0 or "p99" not in result:
        raise RuntimeError(f"wrk gave no figures for {url}:\n{out}")
    return result


def wrk(url, connections, seconds, core, headers=(), timeout="5s", script=None):
    argv = wrk_argv(url, connections, seconds, headers, timeout, script)
    out = subprocess.run(pinned(core, argv), capture_output=True, text=True, timeout=seconds + 60).stdout
    return parse_wrk(out, url, connections)


def measured(server, path, connections, seconds, core, headers=()):
    before = cpu_seconds(server.pids)
    result = wrk(server.base + path, connections, seconds, core, headers)
    result["cpu_us"] = (cpu_seconds(server.pids) - before) / result["requests"] * 1e6
    return result


# ---------------------------------------------------------------- the parts

def tune_nginx(args, binary, cores, folder, targets):
    """nginx at its best on these answers: every NGINX_FILE_IO setting, each route at 64
    connections, the fastest (by the geometric mean of the routes' req/s) kept."""
    figures = {}
    for name in NGINX_FILE_IO:
        nginx = Nginx(binary, cores[1], folder, file_io=name)
        for path in targets.values():
            wrk(nginx.base + path, 64, 1, cores[0])
        rates = [wrk(nginx.base + path, 64, args.duration, cores[0])["rps"] for path in targets.values()]
        stop(nginx.proc)
        figures[name] = statistics.geometric_mean(rates)
        log(f"  nginx {name:45} {figures[name]:>9.0f} req/s (geometric mean of the routes, 64 conns)")
    best = max(figures, key=figures.get)
    NGINX_BEST[0] = best
    return best, figures


def throughput(args, servers, targets, cores):
    """Every (target, connections) on every server per round, the order rotating."""
    runs = {}
    for server in servers:  # warm-up: caches, JIT-free but page faults and allocators
        for path in targets.values():
            wrk(server.base + path, 64, 1, cores[0])
    for round_number in range(args.rounds):
        for label, path in targets.items():
            for connections in (1, 64):
                shift = round_number % len(servers)
                order = servers[shift:] + servers[:shift]
                for server in order:
                    result = measured(server, path, connections, args.duration, cores[0])
                    runs.setdefault((label, connections, server.name), []).append(result)
                    log(f"  round {round_number + 1} {label:5} c={connections:<3} {server.name:11} "
                        f"{result['rps']:>9.0f} req/s  p50 {result['p50']:.3f} ms  p99 {result['p99']:.3f} ms  "
                        f"cpu {result['cpu_us']:.1f} µs/req  errors {result['errors'] + result['socket_errors']}")
    return runs


# The header that selects the delayed answers, and the one the undelayed client sends: the
# mock's scenarios (`Benchmarks/scenarios/bench-delay.json`, the shipped `happy-path`), and
# the same field and value for nio-floor's `--delay`.
DELAY_HEADER, DELAY_VALUE, NO_DELAY_VALUE, DELAY_MS = "X-Mock-Scenario", "bench-delay", "happy-path", 200


def delayed(args, make, cores, path):
    """`--delayed-connections` connections (10,000) each waiting a fixed 200 ms, and one
    undelayed client beside them once the server `make()` starts holds them all."""
    mock = make()
    seconds = args.delayed_duration
    base, overflows = open_fds(mock.pids), listen_overflows()
    started = time.monotonic()
    slow = subprocess.Popen(pinned(cores[0], wrk_argv(mock.base + path, args.delayed_connections, seconds,
                                                      headers=[f"{DELAY_HEADER}: {DELAY_VALUE}"])),
                            stdout=subprocess.PIPE, text=True)
    STARTED.append(slow)
    # wrk opens every connection at once; the undelayed client starts once the server holds
    # them all (at least 1 s in, at most 3 s) and measures for the rest of the run.
    opened = None
    while time.monotonic() - started < min(3, seconds - 3):
        if opened is None and open_fds(mock.pids) - base >= args.delayed_connections:
            opened = time.monotonic() - started
        if opened is not None and time.monotonic() - started >= 1:
            break
        time.sleep(0.05)
    held_start = open_fds(mock.pids) - base
    # How busy each core was while the undelayed client measured: the server's (mock) and
    # the client's (the delayed wrk; the undelayed one is small beside it).
    busy_from = time.monotonic(), cpu_seconds(mock.pids), cpu_seconds([slow.pid])
    fast = wrk(mock.base + path, 1, max(1, int(seconds - (time.monotonic() - started) - 1)), cores[0],
               headers=[f"{DELAY_HEADER}: {NO_DELAY_VALUE}"])
    wall = time.monotonic() - busy_from[0]
    busy = ((cpu_seconds(mock.pids) - busy_from[1]) / wall, (cpu_seconds([slow.pid]) - busy_from[2]) / wall)
    held_end, rss = open_fds(mock.pids) - base, rss_mb(mock.pids)
    out, _ = slow.communicate(timeout=seconds + 60)
    stop(mock.proc)
    slow_result = parse_wrk(out, "the delayed wrk", args.delayed_connections)
    slow_result.update(held=min(held_start, held_end), opened=opened, rss=rss, overflows=listen_overflows() - overflows, seconds=seconds,
                       busy=busy)
    return slow_result, fast


def combined_delays(rounds):
    """The delayed row over several rounds of one server: medians of the rates and
    latencies; the fewest connections held, the latest to be all held, every handshake
    dropped and socket error, the largest RSS."""
    slows, fasts = [slow for slow, _ in rounds], [fast for _, fast in rounds]
    slow = dict(slows[0])
    for key in ("p50", "p99", "requests"):
        slow[key] = statistics.median(run[key] for run in slows)
    slow["held"] = min(run["held"] for run in slows)
    slow["opened"] = None if any(run["opened"] is None for run in slows) else max(run["opened"] for run in slows)
    slow["overflows"] = sum(run["overflows"] for run in slows)
    slow["rss"] = max(run["rss"] for run in slows)
    slow["busy"] = tuple(statistics.median(run["busy"][i] for run in slows) for i in range(2))
    slow["socket_detail"] = {key: sum(run["socket_detail"].get(key, 0) for run in slows) for key in slows[0]["socket_detail"]}
    slow["rounds"] = len(rounds)
    fast = dict(fasts[0])
    for key in ("p50", "p99"):
        fast[key] = statistics.median(run[key] for run in fasts)
    return slow, fast


def startup(makers, samples):
    """Process start to the first 200, median of several per server. The servers take
    turns, so a slow spell of the machine falls on both, as in the throughput rounds."""
    times = {name: [] for name in makers}
    for round_number in range(samples):
        order = list(makers.items()) if round_number % 2 == 0 else list(reversed(makers.items()))
        for name, make in order:
            started = time.perf_counter()
            server = make()
            times[name].append((time.perf_counter() - started) * 1000)
            stop(server.proc)
    return {name: (statistics.median(values), values) for name, values in times.items()}


def memory(args, binary, cores, path):
    """RSS idle, then while a million requests go by with the default journal cap."""
    mock = Mock(binary, cores[1])
    time.sleep(1)
    idle = rss_mb(mock.pids)
    marks, total, series = {}, 0, []
    halfway = args.million // 2
    deadline = time.monotonic() + args.time_limit / 3
    while total < args.million and time.monotonic() < deadline:
        total += wrk(mock.base + path, 64, 2, cores[0])["requests"]
        series.append((total, rss_mb(mock.pids)))
        if total >= halfway and "half" not in marks:
            marks["half"] = (total, series[-1][1])
    marks["full"] = (total, series[-1][1])
    stop(mock.proc)
    return idle, marks, series


# ---------------------------------------------------------------- growth (#24)

# The name of the dynamically linked build in the throughput rounds.
DYNAMIC = "mock-server (dynamic)"
GROWTH_CONNECTIONS = [1, 64, 1000, 10000]  # fewer if the open-file limit is low
# What either server may hold in the growth rows, above the most wrk opens: the mock's
# --max-connections (default 4,096) and nginx's worker_connections (which counts its
# listening socket too).
GROWTH_LIMIT = 12_000


def open_fds(pids):
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            pass
    return total


def listen_overflows():
    """The kernel's count of connections dropped because a listening socket's accept queue
    was full (TcpExt ListenOverflows, the whole machine's)."""
    with open("/proc/net/netstat") as f:
        rows = [line.split() for line in f if line.startswith("TcpExt:")]
    return int(dict(zip(rows[0], rows[1])).get("ListenOverflows", 0))


class Counter:
    """A server's own count of the requests it answered, asked over one keep-alive
    connection of its own, opened before the load, so asking opens none during it."""

    def __init__(self, port, path, parse, tls=False):
        self.connection = (http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=ssl._create_unverified_context()) if tls
                           else http.client.HTTPConnection("127.0.0.1", port, timeout=30))
        self.path, self.parse = path, parse
        self()

    def __call__(self):
        asked = time.monotonic()
        self.connection.request("GET", self.path)
        body = self.connection.getresponse().read()
        return (asked + time.monotonic()) / 2, self.parse(body)

    def close(self):
        self.connection.close()


def counter_of(server, tls=False):
    if server.name == "nginx":
        return Counter(server.port, "/__status", lambda body: int(re.search(rb"\n\s*\d+\s+\d+\s+(\d+)", body).group(1)), tls)
    if server.name == "nio-floor":
        return Counter(server.port, "/__count", int, tls)
    return Counter(server.port, "/__admin/info", lambda body: json.loads(body)["journal"]["total"], tls)


def held_load(server, path, connections, seconds, core, ramp_limit):
    """wrk with `connections` keep-alive connections on `path`, opened all at once. The
    server's own count of answers is read over a `seconds` window that starts once it
    holds every connection (its open descriptors) and has had 1 s of load, or at
    `ramp_limit`."""
    counter = counter_of(server)
    base, overflows = open_fds(server.pids), listen_overflows()
    url = server.base + path
    started = time.monotonic()
    proc = subprocess.Popen(pinned(core, wrk_argv(url, connections, int(ramp_limit + seconds + 10))), stdout=subprocess.PIPE, text=True)
    STARTED.append(proc)
    opened = None
    while True:
        elapsed = time.monotonic() - started
        if opened is None and open_fds(server.pids) - base >= connections:
            opened = elapsed
        if (opened is not None and elapsed >= 1) or elapsed >= ramp_limit:
            break
        time.sleep(0.05)
    held_start = open_fds(server.pids) - base
    t0, c0 = counter()
    time.sleep(seconds)
    t1, c1 = counter()
    rss, held_end = rss_mb(server.pids), open_fds(server.pids) - base
    proc.send_signal(signal.SIGINT)  # wrk stops and prints what it saw
    out, _ = proc.communicate(timeout=60)
    counter.close()
    result = parse_wrk(out, url, connections)
    result.update(wrk_rps=result["rps"], rps=(c1 - c0 - 1) / (t1 - t0), rss=rss, held=min(held_start, held_end), opened=opened,
                  overflows=listen_overflows() - overflows)
    return result


def connection_growth(args, binary, nginx_binary, cores, folder):
    """req/s and RSS at 1, 64, 1,000 and 10,000 keep-alive connections on /menu: a fresh
    server of each kind per measurement (RSS then shows what those connections cost, not
    what an earlier, larger run left behind), the order alternating."""
    makers = {"mock-server": lambda: Mock(binary, cores[1], ["--max-connections", str(GROWTH_LIMIT)]),
              "nginx": lambda: Nginx(nginx_binary, cores[1], folder, worker_connections=GROWTH_LIMIT, status=True)}
    ramp_limit = max(6, args.duration)  # past 1 s and 3 s, a dropped handshake's next retry is at 7 s
    runs = {}
    for round_number in range(args.rounds):
        for index, connections in enumerate(GROWTH_CONNECTIONS):
            names = list(makers)
            if (round_number + index) % 2:
                names.reverse()
            for name in names:
                server = makers[name]()
                result = held_load(server, "/menu", connections, args.duration, cores[0], ramp_limit)
                stop(server.proc)
                runs.setdefault((connections, name), []).append(result)
                errors = ", ".join(f"{k} {v}" for k, v in result["socket_detail"].items() if v) or "none"
                log(f"  round {round_number + 1} c={connections:<5} {name:11} {result['rps']:>9.0f} req/s (wrk {result['wrk_rps']:.0f}), "
                    f"RSS {result['rss']:.1f} MB, held {result['held']}"
                    + (f" all after {result['opened']:.2f} s" if result["opened"] is not None else f" (not all within {ramp_limit} s)")
                    + f", socket errors {errors}, non-2xx {result['errors']}, accept-queue overflows {result['overflows']}")
    return runs


def journal_growth(args, binary, cores):
    """/menu at 64 connections on a fresh server, then on the same server once its journal
    is at the cap (every request then evicts the oldest entry), the cap checked with
    GET /__admin/info. The fresh run reaches the cap within its first second: it is a run
    that starts with an empty journal against one that starts with a full one."""
    samples = []
    for _ in range(args.rounds):
        mock = Mock(binary, cores[1])

        def journal():
            return json.load(urllib.request.urlopen(mock.base + "/__admin/info"))["journal"]
        rss_fresh, before = rss_mb(mock.pids), journal()
        fresh = measured(mock, "/menu", 64, args.duration, cores[0])
        full, rss_full = journal(), rss_mb(mock.pids)
        if full["kept"] != full["capacity"]:
            raise RuntimeError(f"the journal is not at its cap: {full}")
        at_cap = measured(mock, "/menu", 64, args.duration, cores[0])
        end, rss_end = journal(), rss_mb(mock.pids)
        stop(mock.proc)
        if end["kept"] != end["capacity"]:
            raise RuntimeError(f"the journal is not at its cap: {end}")
        samples.append(dict(errors=fresh["errors"] + fresh["socket_errors"] + at_cap["errors"] + at_cap["socket_errors"], fresh=fresh["rps"], at_cap=at_cap["rps"], fresh_p99=fresh["p99"], at_cap_p99=at_cap["p99"],
                            fresh_cpu=fresh["cpu_us"], at_cap_cpu=at_cap["cpu_us"], rss_fresh=rss_fresh, rss_full=rss_full, rss_end=rss_end,
                            kept_before=before["kept"], capacity=full["capacity"], filled_after=full["capacity"] / fresh["rps"]))
        log(f"  journal fresh ({before['kept']:,} kept, RSS {rss_fresh:.1f} MB) {fresh['rps']:>8.0f} req/s p99 {fresh['p99']:.2f} ms "
            f"cpu {fresh['cpu_us']:.1f} µs/req → {full['kept']:,} kept of {full['total']:,}, RSS {rss_full:.1f} MB; "
            f"at its cap {at_cap['rps']:>8.0f} req/s p99 {at_cap['p99']:.2f} ms cpu {at_cap['cpu_us']:.1f} µs/req "
            f"→ {end['kept']:,} kept of {end['total']:,}, RSS {rss_end:.1f} MB")
    return {key: statistics.median(sample[key] for sample in samples) for key in samples[0]} | {
        "servers": len(samples), "errors": sum(sample["errors"] for sample in samples)}


def make_catalogue(folder, count):
    """A fixtures folder whose Open Market catalogue has `count` products: the shipped
    products repeated in order, each copy with its own id, secret and image ids, with the
    shipped vendors, images and Restaurant fixtures (linked)."""
    shipped = os.path.join(ROOT, "Fixtures")
    with open(os.path.join(shipped, "openmarket", "products.json")) as f:
        products = json.load(f)["products"]
    market = os.path.join(folder, "openmarket")
    os.makedirs(market)
    shutil.copy(os.path.join(shipped, "openmarket", "vendors.json"), market)
    os.symlink(os.path.join(shipped, "openmarket", "images"), os.path.join(market, "images"))
    os.symlink(os.path.join(shipped, "restaurant"), os.path.join(folder, "restaurant"))
    made = []
    for index in range(count):
        product = dict(products[index % len(products)], id=index + 1, secret=f"secret-{index + 1:06d}")
        product["images"] = [{"id": (index + 1) * 10 + k, "file": image["file"]} for k, image in enumerate(product["images"])]
        made.append(product)
    with open(os.path.join(market, "products.json"), "w") as f:
        json.dump({"products": made}, f, ensure_ascii=False)
    return folder


def catalogue_growth(args, binary, cores, folder, big=100_000, per_page=20):
    """Open Market pages of the shipped catalogue's size and of `big` products, each
    generated the same way: page 1 and the last full page (a repeated page comes from the
    rendered-page cache), and 1-item pages in rotation, more of them than that cache
    holds (64), so every request renders its page: the shipped catalogue's first 126
    against the last 126 of the big one."""
    with open(os.path.join(ROOT, "Fixtures", "openmarket", "products.json")) as f:
        shipped = len(json.load(f)["products"])
    servers, starts = {}, {}
    for count in (shipped, big):
        path = make_catalogue(os.path.join(folder, f"catalogue-{count}"), count)
        started = time.perf_counter()
        servers[count] = Mock(binary, cores[1], ["--fixtures", path])
        starts[count] = ((time.perf_counter() - started) * 1000, rss_mb(servers[count].pids))
        log(f"  {count:,} products: first 200 after {starts[count][0]:.0f} ms, RSS {starts[count][1]:.1f} MB")
    cells = []
    for count in (shipped, big):
        for page in (1, count // per_page):
            cells.append((count, f"page {page:,} ({per_page} items{', the last full one' if page > 1 else ''})",
                          f"/api/products?page_no={page}&items_per_page={per_page}", None))
        first = 1 if count == shipped else count - shipped + 1
        script = os.path.join(folder, f"pages-{count}.lua")
        with open(script, "w") as f:
            f.write(f"local first, count, n = {first}, {shipped}, 0\n"
                    "request = function()\n"
                    "  local path = \"/api/products?page_no=\" .. (first + n % count) .. \"&items_per_page=1\"\n"
                    "  n = n + 1\n"
                    "  return wrk.format(\"GET\", path)\n"
                    "end\n")
        cells.append((count, f"1-item pages {first:,}–{first + shipped - 1:,}, each rendered", f"/api/products?page_no={first}&items_per_page=1", script))
    sizes = {}
    for count, label, path, script in cells:
        answer = urllib.request.urlopen(servers[count].base + path)
        if answer.status != 200:
            raise RuntimeError(f"{count:,} products, {label}: status {answer.status}")
        sizes[(count, label)] = len(answer.read())
        wrk(servers[count].base + path, 64, 1, cores[0], script=script)  # warm-up: every product's template made
    runs = {}
    for round_number in range(args.rounds):
        shift = round_number % len(cells)
        for count, label, path, script in cells[shift:] + cells[:shift]:
            result = wrk(servers[count].base + path, 64, args.duration, cores[0], script=script)
            runs.setdefault((count, label), []).append(result)
            log(f"  round {round_number + 1} {count:>7,} products {label:40} {result['rps']:>8.0f} req/s  "
                f"p50 {result['p50']:.3f} ms  p99 {result['p99']:.3f} ms  errors {result['errors'] + result['socket_errors']}")
    rss_after = {count: rss_mb(server.pids) for count, server in servers.items()}
    for server in servers.values():
        stop(server.proc)
    return {"shipped": shipped, "big": big, "per_page": per_page, "cells": [(count, label) for count, label, _, _ in cells],
            "runs": runs, "sizes": sizes, "starts": starts, "rss_after": rss_after}


def make_certificate(binary, folder):
    """One certificate for both servers: the mock's local CA (made by `mock-server ca`)
    signs a P-256 leaf for 127.0.0.1 and localhost with openssl, the kind the mock issues."""
    ca_dir = os.path.join(folder, "ca")
    subprocess.run([binary, "ca", "--ca-dir", ca_dir], check=True, capture_output=True)
    key, csr, cert, ext = (os.path.join(folder, name) for name in ("server-key.pem", "server.csr", "server.pem", "server.ext"))
    with open(ext, "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key + ".ec"], check=True, capture_output=True)
    subprocess.run(["openssl", "pkcs8", "-topk8", "-nocrypt", "-in", key + ".ec", "-out", key], check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-new", "-key", key, "-subj", "/CN=localhost", "-out", csr], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(ca_dir, "ca.pem"), "-CAkey", os.path.join(ca_dir, "ca-key.pem"),
                    "-CAcreateserial", "-days", "397", "-sha256", "-extfile", ext, "-out", cert], check=True, capture_output=True)
    return cert, key


def h2load(url, clients, requests, streams, core, h1=False):
    argv = ["h2load", "-n", str(requests), "-c", str(clients), "-m", str(streams), *(["--h1"] if h1 else []), url]
    out = subprocess.run(pinned(core, argv), capture_output=True, text=True, timeout=300).stdout
    match = re.search(r"finished in ([\d.]+)(ms|s), ([\d.]+) req/s", out)
    done = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", out)
    if not match or not done or int(done.group(2)) == 0:
        raise RuntimeError(f"h2load gave no figures for {url}:\n{out}")
    return {"rps": float(match.group(3)), "requests": int(done.group(1)), "succeeded": int(done.group(2)),
            "errors": int(done.group(3)) + int(done.group(4)), "seconds": float(match.group(1)) / (1000 if match.group(2) == "ms" else 1),
            "tls": tuple(value for _, value in re.findall(r"^(TLS Protocol|Cipher|Server Temp Key): (.+)$", out, re.M))}


def tickets(server):
    """How many TLS 1.3 session tickets the server sends after a handshake (openssl
    s_client, one request, read until the server closes: `-ign_eof`, or s_client may
    stop at the end of its input before the tickets arrive)."""
    port = server.base.rsplit(":", 1)[1]
    out = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-tls1_3", "-alpn", "http/1.1", "-ign_eof"],
                         input=b"GET /menu HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                         capture_output=True, timeout=30).stdout
    return out.count(b"New Session Ticket arrived")


def handshakes(server, seconds, core, h1):
    """Full TLS handshakes for at least `seconds`: h2load batches of 200 clients, one
    request each, so every request is a new connection and a full handshake (h2load
    resumes a session only when one client reconnects, and no client here reconnects;
    every server sends its tickets all the same, `tickets`). What h2load counted is checked against the server's own count
    of answered requests, and the server's CPU over the batches gives its cost per
    handshake, a figure the client's speed does not bound: h2load on one core makes
    about as many handshakes a second as any of these servers answers."""
    counter = counter_of(server, tls=True)
    _, before = counter()
    cpu_before, started = cpu_seconds(server.pids), time.monotonic()
    succeeded = errors = 0
    client_seconds, parameters = 0.0, set()
    while time.monotonic() - started < seconds:
        batch = h2load(server.base + "/menu", 200, 200, 1, core, h1=h1)
        succeeded += batch["succeeded"]
        errors += batch["errors"]
        client_seconds += batch["seconds"]
        parameters.add(batch["tls"])
    wall = time.monotonic() - started
    cpu = cpu_seconds(server.pids) - cpu_before
    _, after = counter()
    counter.close()
    # nginx's stub_status counts the request that reads it; the mock journals the request
    # that read its total after answering it, so the first read lands in the difference;
    # nio-floor does not count `/__count`.
    counted = after - before - {"nginx": 1, "mock-server": 1, "nio-floor": 0}[server.name]
    if counted != succeeded:
        raise RuntimeError(f"{server.name}: h2load counted {succeeded:,} answered requests, the server {counted:,}")
    if len(parameters) != 1 or len(next(iter(parameters))) != 3:
        raise RuntimeError(f"{server.name}: the TLS parameters h2load reported changed or are missing: {parameters}")
    return {"rps": succeeded / client_seconds, "cpu_us": cpu / succeeded * 1e6, "busy": cpu / wall, "counted": succeeded,
            "errors": errors, "tls": next(iter(parameters))}


def tls(args, binary, nginx_binary, floor_binary, cores, folder):
    """HTTPS against nginx with TLS: the same certificate, the same bytes, the same run.
    Keep-alive req/s over HTTP/1.1 (wrk) and HTTP/2 (h2load, 10 streams per connection),
    and full handshakes per second (a new connection per request: wrk with
    `Connection: close`; h2load with one request per client). nio-floor with the same
    certificate (swift-nio-ssl and swift-nio-http2, as the mock) shows the least SwiftNIO
    does for each row."""
    cert, key = make_certificate(binary, folder)
    mock = Mock(binary, cores[1], ["--tls", "--tls-cert", cert, "--tls-key", key], tls=True)
    context = ssl.create_default_context(cafile=os.path.join(folder, "ca", "ca.pem"))
    # The menu's image URLs name the scheme and port the client used: nginx gets these bytes.
    a = urllib.request.urlopen(mock.base + "/menu", context=context).read()
    with open(os.path.join(folder, "www", "menu.json"), "wb") as f:
        f.write(a)
    nginx = Nginx(nginx_binary, cores[1], folder, tls=(cert, key), status=True)
    b = urllib.request.urlopen(nginx.base + "/menu", context=context).read()
    if a != b:
        raise RuntimeError("over TLS, nginx and the mock serve different bytes")
    floor = Floor(floor_binary, cores[1], folder, {"/menu": ("menu.json", "application/json")}, tls=(cert, key))
    if urllib.request.urlopen(floor.base + "/menu", context=ssl._create_unverified_context()).read() != a:
        raise RuntimeError("over TLS, nio-floor and the mock serve different bytes")
    servers = [mock, nginx, floor]
    sent = {server.name: tickets(server) for server in servers}
    if len(set(sent.values())) != 1:
        raise RuntimeError(f"the servers send different numbers of session tickets per handshake: {sent}")
    runs = {}
    seconds = args.duration
    for server in servers:   # warm-up
        wrk(server.base + "/menu", 16, 1, cores[0])
    for round_number in range(args.rounds):
        shift = round_number % len(servers)
        order = servers[shift:] + servers[:shift]
        for server in order:
            keep = wrk(server.base + "/menu", 64, seconds, cores[0])
            # A new connection per request, the same client for both servers: h2load over
            # HTTP/1.1, one request per client, which does not resume TLS sessions (wrk with
            # Connection: close resumed where a server allows it, so the mock, whose TLS
            # library keeps a session cache, did half the work of nginx's full handshakes).
            fresh = handshakes(server, seconds, cores[0], h1=True)
            h2 = h2load(server.base + "/menu", 16, max(2000, int(keep["rps"] * seconds)), 10, cores[0])
            h2_fresh = handshakes(server, seconds, cores[0], h1=False)
            row = {"h1_keepalive": keep["rps"], "h1_handshakes": fresh["rps"], "h2_keepalive": h2["rps"], "h2_handshakes": h2_fresh["rps"],
                   "h1_handshake_cpu": fresh["cpu_us"], "h2_handshake_cpu": h2_fresh["cpu_us"],
                   "h1_handshake_busy": fresh["busy"], "h2_handshake_busy": h2_fresh["busy"],
                   "handshakes_counted": fresh["counted"] + h2_fresh["counted"], "tls": {fresh["tls"], h2_fresh["tls"]},
                   "errors": keep["errors"] + keep["socket_errors"] + fresh["errors"] + h2["errors"] + h2_fresh["errors"]}
            runs.setdefault(server.name, []).append(row)
            log(f"  round {round_number + 1} TLS {server.name:11} h1 keep-alive {row['h1_keepalive']:>8.0f} req/s, "
                f"h1 handshakes {row['h1_handshakes']:>6.0f}/s, h2 keep-alive {row['h2_keepalive']:>8.0f} req/s, "
                f"h2 handshakes {row['h2_handshakes']:>6.0f}/s, handshake CPU h1 {row['h1_handshake_cpu']:.0f} µs / h2 {row['h2_handshake_cpu']:.0f} µs "
                f"(server busy {row['h1_handshake_busy']:.0%} / {row['h2_handshake_busy']:.0%}), errors {row['errors']}")
    # The key exchange, cipher and protocol h2load saw: the same on every server, or the
    # handshake rows would compare different work.
    seen = {parameters for runs_ in runs.values() for run in runs_ for parameters in run["tls"]}
    if len(seen) != 1:
        raise RuntimeError(f"the servers' TLS handshakes differ: {seen}")
    for runs_ in runs.values():
        runs_[0]["tickets"] = sent[mock.name]
    stop(mock.proc)
    stop(nginx.proc)
    stop(floor.proc)
    return runs


def tls_startup(binary, cores, folder, samples):
    """Start-up to the first 200 with --tls and an existing CA (it issues a certificate per
    start), beside a plain start, taking turns."""
    ca_dir = os.path.join(folder, "ca")
    return startup({"plain": lambda: Mock(binary, cores[1]),
                    "tls": lambda: Mock(binary, cores[1], ["--tls", "--ca-dir", ca_dir], tls=True)}, samples)


def contract_timing(binary, rounds):
    out = subprocess.run([binary, str(rounds)], capture_output=True, text=True, timeout=600).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def servers_per_test(binary, count):
    """What the .mockServer trait costs a test: a TestMockServer started, asked once over
    a socket and stopped, `count` times in one process (fixtures read once, shared)."""
    out = subprocess.run([binary, "servers", str(count)], capture_output=True, text=True, timeout=600).stdout
    return next(json.loads(line) for line in out.splitlines() if line.startswith("{"))


# ---------------------------------------------------------------- report

def median_of(runs, key):
    return statistics.median(run[key] for run in runs)


def report(args, runs, targets, delay, starts, mem, contracts, sizes, tls_runs, tls_starts, nginx_choice, per_test, growth):
    lines = []
    today = datetime.date.today().isoformat()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    best, tried = nginx_choice
    lines.append(f"Measured {today} on {os.cpu_count()} cores ({cpu}), Linux {platform.release()}; "
                 f"wrk on core 0, the server on core 1; {args.rounds} round{'s' if args.rounds != 1 else ''} of {args.duration} s, medians; "
                 f"nginx with one worker serving the same bytes at its best: {best} (fastest of {len(tried)} settings measured in this run: "
                 + ", ".join(f"{name} {rate:,.0f}" for name, rate in sorted(tried.items(), key=lambda item: -item[1]))
                 + " req/s); nio-floor, the least a SwiftNIO server does to answer the same bytes. "
                 f"Produced by `Benchmarks/run.sh{' --quick' if args.quick else ' --readme'}`.")
    lines.append("")
    lines.append("| route (bytes) | conns | mock req/s | nginx req/s | ratio | floor req/s | mock/floor | mock p50 / p99 ms | nginx p50 / p99 ms | mock CPU µs/req | nginx CPU µs/req | CPU ratio |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    figures = {}
    for label in targets:
        for connections in (1, 64):
            mock, nginx, floor = (runs[(label, connections, name)] for name in ("mock-server", "nginx", "nio-floor"))
            m_rps, n_rps, f_rps = median_of(mock, "rps"), median_of(nginx, "rps"), median_of(floor, "rps")
            m_cpu, n_cpu = median_of(mock, "cpu_us"), median_of(nginx, "cpu_us")
            figures[(label, connections)] = dict(ratio=m_rps / n_rps, floor_ratio=m_rps / f_rps, cpu_ratio=m_cpu / n_cpu,
                                                 p99=median_of(mock, "p99"), nginx_p99=median_of(nginx, "p99"))
            lines.append(f"| {label} ({sizes[label]}) | {connections} | {m_rps:,.0f} | {n_rps:,.0f} | {m_rps / n_rps:.2f}× | "
                         f"{f_rps:,.0f} | {m_rps / f_rps:.2f}× | "
                         f"{median_of(mock, 'p50'):.3f} / {median_of(mock, 'p99'):.3f} | "
                         f"{median_of(nginx, 'p50'):.3f} / {median_of(nginx, 'p99'):.3f} | "
                         f"{m_cpu:.1f} | {n_cpu:.1f} | {m_cpu / n_cpu:.2f}× |")
    lines.append("")
    dynamic_measured = all((label, 64, DYNAMIC) in runs for label in targets)
    if not dynamic_measured:
        lines.append("The binary `swift build -c release` makes (linked dynamically) was not measured in this run: "
                     "`--quick` does not build it.")
    else:
        lines.append("The binary `swift build -c release` makes, as users run it (the Swift runtime and Foundation linked dynamically), "
                     "in the same rounds, 64 connections:")
        lines.append("")
        lines.append("| route | req/s | × nginx | × floor | × the static build | p99 ms | p99 × nginx | CPU µs/req | CPU × nginx |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label in (targets if dynamic_measured else []):
        dyn, mock, nginx, floor = (runs[(label, 64, name)] for name in (DYNAMIC, "mock-server", "nginx", "nio-floor"))
        d_rps, d_cpu, d_p99 = median_of(dyn, "rps"), median_of(dyn, "cpu_us"), median_of(dyn, "p99")
        n_rps, n_cpu, n_p99 = median_of(nginx, "rps"), median_of(nginx, "cpu_us"), median_of(nginx, "p99")
        figures[(label, "dynamic")] = dict(ratio=d_rps / n_rps, floor_ratio=d_rps / median_of(floor, "rps"), cpu_ratio=d_cpu / n_cpu,
                                           p99_ratio=d_p99 / n_p99)
        lines.append(f"| {label} | {d_rps:,.0f} | {d_rps / n_rps:.2f}× | {d_rps / median_of(floor, 'rps'):.2f}× | "
                     f"{d_rps / median_of(mock, 'rps'):.2f}× | {d_p99:.3f} | {d_p99 / n_p99:.2f}× | {d_cpu:.1f} | {d_cpu / n_cpu:.2f}× |")
    lines.append("")
    protocol, cipher, key_exchange = next(iter(tls_runs["mock-server"][0]["tls"]))
    lines.append(f"Over TLS (the same P-256 certificate from the mock's CA for every server; {protocol}, {cipher}, key exchange "
                 f"{key_exchange} on every server, as h2load reported; {tls_runs['mock-server'][0]['tickets']} session tickets sent "
                 "after each handshake by every server, as openssl s_client counted; no session reuse), `/menu`:")
    lines.append("")
    lines.append("| | mock req/s | nginx req/s | ratio | floor req/s | mock/floor | floor/nginx |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    tls_figures, tls_floor = {}, {}
    for key, label in (("h1_keepalive", "HTTP/1.1 keep-alive, 64 conns (wrk)"),
                       ("h1_handshakes", "HTTP/1.1 one request per connection: handshakes/s (h2load --h1, bound by the client)"),
                       ("h2_keepalive", "HTTP/2 keep-alive, 16 conns × 10 streams (h2load)"),
                       ("h2_handshakes", "HTTP/2 one request per connection: handshakes/s (h2load, bound by the client)")):
        m, n, f = (median_of(tls_runs[name], key) for name in ("mock-server", "nginx", "nio-floor"))
        tls_figures[key] = m / n
        tls_floor[key] = (m / f, f / n)
        lines.append(f"| {label} | {m:,.0f} | {n:,.0f} | {m / n:.2f}× | {f:,.0f} | {m / f:.2f}× | {f / n:.2f}× |")
    counted = {name: sum(run["handshakes_counted"] for run in tls_runs[name]) for name in ("mock-server", "nginx", "nio-floor")}
    lines.append("")
    lines.append(f"Full handshakes, each a new connection with one request (h2load batches of 200 clients for {args.duration} s a round): "
                 "h2load on its one core makes about as many a second as any of these servers answers, so the rate above is the "
                 "client's. What each server spends is its CPU over the batches divided by the handshakes, each counted by h2load "
                 f"and checked against the server's own count of answered requests (mock {counted['mock-server']:,}, nginx "
                 f"{counted['nginx']:,}, floor {counted['nio-floor']:,} over all rounds).")
    lines.append("")
    lines.append("| | mock CPU µs | nginx CPU µs | CPU ratio | floor CPU µs | mock/floor CPU | server busy: mock / nginx / floor |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for key, label in (("h1", "HTTP/1.1 (h2load --h1), per full handshake"), ("h2", "HTTP/2 (h2load), per full handshake")):
        m, n, f = (median_of(tls_runs[name], f"{key}_handshake_cpu") for name in ("mock-server", "nginx", "nio-floor"))
        busy = " / ".join(f"{median_of(tls_runs[name], f'{key}_handshake_busy'):.0%}" for name in ("mock-server", "nginx", "nio-floor"))
        tls_figures[f"{key}_handshake_cpu"] = m / n
        lines.append(f"| {label} | {m:,.0f} | {n:,.0f} | {m / n:.2f}× | {f:,.0f} | {m / f:.2f}× | {busy} |")
    tls_errors = sum(run["errors"] for runs_ in tls_runs.values() for run in runs_)
    (mock_start, mock_starts), (nginx_start, _), (floor_start, _) = starts
    (plain_start, _), (tls_start, tls_start_samples) = tls_starts["plain"], tls_starts["tls"]
    idle, marks, _ = mem
    lines.append("")
    lines.append(f"- Start-up to the first 200 (median of {len(mock_starts)} each, the servers taking turns): mock-server {mock_start:.1f} ms, "
                 f"nginx {nginx_start:.1f} ms; nio-floor {floor_start:.1f} ms, the least a Swift server built the same way (NIO, the Swift "
                 "runtime and Foundation linked statically) takes when it parses no fixture (it only reads the files it serves).")
    lines.append(f"- Start-up with `--tls` and an existing CA (a certificate issued per start; median of {len(tls_start_samples)}, "
                 f"taking turns with a plain start): {tls_start:.1f} ms, plain {plain_start:.1f} ms ({tls_start / plain_start:.2f}×).")
    lines.append(f"- Memory (RSS): idle {idle:.1f} MB; {marks['half'][1]:.1f} MB after {marks['half'][0]:,} requests, "
                 f"{marks['full'][1]:.1f} MB after {marks['full'][0]:,} (journal cap 10,000).")
    for contract in contracts:
        seconds = ", ".join(f"{s:.2f}" for s in contract["seconds"])
        slowest = ", ".join(f"{check} {t:.2f} s" for check, t in contract.get("slowest", [])[:3])
        lines.append(f"- Contract suite `{contract['api']}` ({contract['checks']} checks, reference provider, default 1 s timeout, "
                     f"{'all passed' if contract['passed'] else 'FAILURES'}): {statistics.median(contract['seconds']):.2f} s (runs: {seconds}; "
                     f"slowest checks: {slowest}).")
    lines.append(f"- A server per test (`TestMockServer`, what the `.mockServer` trait starts): start, the first answer over a socket "
                 f"and stop, {per_test['servers']} times in one process: median {per_test['median_ms']:.2f} ms, p99 {per_test['p99_ms']:.2f} ms, "
                 f"max {per_test['max_ms']:.2f} ms; 200 such tests add {200 * per_test['median_ms'] / 1000:.2f} s run one after another.")

    routes = list(targets)
    at64 = lambda key: " / ".join(f"{figures[(label, 64)][key]:.2f}" for label in routes)
    contract_seconds = [statistics.median(contract["seconds"]) for contract in contracts]
    targets_met = [
        ("menu, page, image ≥ 1.0× the best nginx's req/s (64 conns)", all(figures[(label, 64)]["ratio"] >= 1.0 for label in routes), at64("ratio") + "×"),
        ("…or, where NIO itself is slower, within 5 % of nio-floor (64 conns)", all(figures[(label, 64)]["floor_ratio"] >= 0.95 for label in routes),
         at64("floor_ratio") + "×"),
        ("server CPU per request ≤ 1.0× nginx (64 conns, every route)", all(figures[(label, 64)]["cpu_ratio"] <= 1.0 for label in routes), at64("cpu_ratio") + "×"),
        ("p99 ≤ 1.2× nginx's (64 conns, every route)", all(figures[(label, 64)]["p99"] <= 1.2 * figures[(label, 64)]["nginx_p99"] for label in routes),
         " / ".join(f"{figures[(label, 64)]['p99'] / figures[(label, 64)]['nginx_p99']:.2f}" for label in routes) + "×"),
    ]
    dynamic_targets = [
        ("the dynamically linked build: req/s ≥ 1.0× nginx, or within 5 % of nio-floor (64 conns)",
         all(figures[(label, "dynamic")]["ratio"] >= 1.0 or figures[(label, "dynamic")]["floor_ratio"] >= 0.95 for label in routes),
         " / ".join(f"{figures[(label, 'dynamic')]['ratio']:.2f}" for label in routes) + "× nginx, "
         + " / ".join(f"{figures[(label, 'dynamic')]['floor_ratio']:.2f}" for label in routes) + "× floor"),
        ("the dynamically linked build: CPU per request ≤ 1.0× nginx", all(figures[(label, "dynamic")]["cpu_ratio"] <= 1.0 for label in routes),
         " / ".join(f"{figures[(label, 'dynamic')]['cpu_ratio']:.2f}" for label in routes) + "×"),
        ("the dynamically linked build: p99 ≤ 1.2× nginx's", all(figures[(label, "dynamic")]["p99_ratio"] <= 1.2 for label in routes),
         " / ".join(f"{figures[(label, 'dynamic')]['p99_ratio']:.2f}" for label in routes) + "×"),
    ] if dynamic_measured else []
    targets_met += dynamic_targets + [
        ("start-up to the first 200 ≤ nginx's", mock_start <= nginx_start, f"{mock_start:.1f} ms vs {nginx_start:.1f} ms (nio-floor {floor_start:.1f} ms)"),
        ("a server per test: median ≤ 2 ms, p99 ≤ 10 ms", per_test["median_ms"] <= 2 and per_test["p99_ms"] <= 10,
         f"{per_test['median_ms']:.2f} / {per_test['p99_ms']:.2f} ms"),
        ("each contract suite ≤ 1.2 s at the default timeout", all(t <= 1.2 for t in contract_seconds), " / ".join(f"{t:.2f}" for t in contract_seconds) + " s"),
        ("HTTPS HTTP/1.1 keep-alive ≥ 1.0× nginx", tls_figures["h1_keepalive"] >= 1.0, f"{tls_figures['h1_keepalive']:.2f}×"),
        ("…or within 5 % of nio-floor over TLS (floor: {:.2f}× nginx)".format(tls_floor["h1_keepalive"][1]),
         tls_floor["h1_keepalive"][0] >= 0.95, f"{tls_floor['h1_keepalive'][0]:.2f}×"),
        ("HTTP/2 keep-alive (h2load) ≥ 0.9× nginx", tls_figures["h2_keepalive"] >= 0.9, f"{tls_figures['h2_keepalive']:.2f}×"),
        ("…or within 5 % of nio-floor's HTTP/2 (floor: {:.2f}× nginx)".format(tls_floor["h2_keepalive"][1]),
         tls_floor["h2_keepalive"][0] >= 0.95, f"{tls_floor['h2_keepalive'][0]:.2f}×"),
        ("start-up with --tls and an existing CA ≤ 2× plain", tls_start <= 2 * plain_start, f"{tls_start / plain_start:.2f}×"),
        ("TLS runs without an error (both servers)", tls_errors == 0, f"{tls_errors} errors"),
        ("RSS after 1M requests ≤ 32 MB", marks["full"][1] <= 32 and marks["full"][0] >= args.million, f"{marks['full'][1]:.1f} MB"),
        ("RSS flat from 500k to 1M (≤ 1 MB growth)", marks["full"][1] - marks["half"][1] <= 1.0,
         f"{marks['full'][1] - marks['half'][1]:+.1f} MB"),
    ]
    growth_lines, growth_targets = growth_report(args, growth, delay)
    lines += growth_lines
    targets_met += growth_targets
    lines.append("")
    lines.append("| target | result | met |")
    lines.append("|---|---:|:---:|")
    for name, met, value in targets_met:
        lines.append(f"| {name} | {value} | {'yes' if met else '**no**'} |")
    return "\n".join(lines) + "\n", all(met for _, met, _ in targets_met)


def growth_report(args, growth, delay):
    """The growth rows of #24 and their targets."""
    conns, journal, cat = growth["connections"], growth["journal"], growth["catalogue"]
    slow, fast = delay["mock"]
    floor_slow, floor_fast = delay["floor"]
    lines = ["", f"Growth (`Benchmarks/run.sh --only growth` runs just these). Keep-alive connections on `/menu`, a fresh server of each "
             f"kind per measurement (the mock with `--max-connections {GROWTH_LIMIT}`, nginx with `worker_connections {GROWTH_LIMIT}`), "
             "one wrk opening them all at once. req/s is each server's own count of answers (the mock's journal total, nginx's "
             f"`stub_status`) over {args.duration} s that start once the server holds every connection (its open descriptors) and has "
             "had 1 s of load; RSS is the server's processes' (nginx: master and worker) at the end; medians of "
             f"{args.rounds} round{'s' if args.rounds != 1 else ''}.", "",
             "| conns | mock req/s | mock RSS MB | nginx req/s | nginx RSS MB | ratio | held: mock / nginx (all held after) | wrk socket errors: mock / nginx |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def held(results):
        count = min(r["held"] for r in results)
        times = [r["opened"] for r in results]
        return f"{count:,} ({max(times):.1f} s)" if None not in times else f"{count:,} (not all)"

    def errors(results):
        total = {k: sum(r["socket_detail"][k] for r in results) for k in ("connect", "read", "write", "timeout")}
        text = ", ".join(f"{k} {v:,}" for k, v in total.items() if v) or "0"
        non2xx = sum(r["errors"] for r in results)
        return text + (f", non-2xx {non2xx:,}" if non2xx else "")
    for connections in GROWTH_CONNECTIONS:
        m, n = conns[(connections, "mock-server")], conns[(connections, "nginx")]
        m_rps, n_rps = median_of(m, "rps"), median_of(n, "rps")
        lines.append(f"| {connections:,} | {m_rps:,.0f} | {median_of(m, 'rss'):.1f} | {n_rps:,.0f} | {median_of(n, 'rss'):.1f} | "
                     f"{m_rps / n_rps:.2f}× | {held(m)} / {held(n)} | {errors(m)} / {errors(n)} |")
    top = GROWTH_CONNECTIONS[-1]
    lines.append("")
    lines.append(f"- While wrk opened {top:,} connections at once, the kernel dropped {sum(r['overflows'] for r in conns[(top, 'mock-server')]):,} "
                 f"handshakes at the mock's full accept queue (backlog 1,024) and {sum(r['overflows'] for r in conns[(top, 'nginx')]):,} at "
                 "nginx's (511) over all rounds (ListenOverflows); the client retries a dropped handshake after 1 s, then 3 s, 7 s.")
    ratio = journal["at_cap"] / journal["fresh"]
    lines.append(f"- The journal at its cap ({journal['capacity']:,} entries, the default), `/menu` at 64 connections, {args.duration} s each: "
                 f"a fresh server (journal entries before the run: {journal['kept_before']:,.0f}; it reaches the cap {journal['filled_after']:.2f} s into the run) "
                 f"{journal['fresh']:,.0f} req/s, p99 {journal['fresh_p99']:.2f} ms, {journal['fresh_cpu']:.1f} µs CPU/req; the same server "
                 f"again, its journal at the cap throughout (each request evicting the oldest entry; checked with `GET /__admin/info`) "
                 f"{journal['at_cap']:,.0f} req/s, p99 {journal['at_cap_p99']:.2f} ms, {journal['at_cap_cpu']:.1f} µs CPU/req: {ratio:.2f}× the fresh run. "
                 f"RSS {journal['rss_fresh']:.1f} MB fresh, {journal['rss_full']:.1f} MB once at the cap, {journal['rss_end']:.1f} MB after "
                 f"the second run (medians of {journal['servers']} server{'s' if journal['servers'] != 1 else ''}; "
                 f"{journal['errors']:,} errors).")
    need = slow["connections"] / 0.2
    mock_top = median_of(conns[(top, "mock-server")], "rps") if slow["connections"] == top else None
    served = slow["requests"] / slow["seconds"]
    opened = f"all held after {slow['opened']:.1f} s" if slow["opened"] is not None else "not all held within 3 s"
    lines.append(f"- Delayed: {slow['connections']:,} connections each with a fixed 200 ms delay, opened at once by one wrk, "
                 f"the mock and nio-floor taking turns; medians of {slow['rounds']} round{'s' if slow['rounds'] != 1 else ''} "
                 f"({slow['requests']:,.0f} requests, {served:,.0f} req/s; the mock held {slow['held']:,} of them, {opened}, "
                 f"{slow['overflows']:,} handshakes dropped at its full accept queue; "
                 f"busy while the undelayed client measured: the server's core {100 * slow['busy'][0]:.0f} %, the delayed wrk "
                 f"{100 * slow['busy'][1]:.0f} % of the client's; wrk socket errors: "
                 + (", ".join(f"{k} {v:,}" for k, v in slow["socket_detail"].items() if v) or "none")
                 + f"; RSS {slow['rss']:.1f} MB): observed p50 {slow['p50']:.1f} ms, p99 {slow['p99']:.1f} ms; "
                 f"the undelayed client beside them: p50 {fast['p50']:.3f} ms, p99 {fast['p99']:.3f} ms. "
                 f"Answering {slow['connections']:,} connections every 200 ms takes {need:,.0f} req/s"
                 + (f"; undelayed, the mock served {mock_top:,.0f} req/s at {top:,} connections in this run." if mock_top else "."))
    floor_opened = (f"all held after {floor_slow['opened']:.1f} s" if floor_slow["opened"] is not None
                    else "not all held within 3 s")
    lines.append(f"- The same with nio-floor, the floor under the mock (`--delay`: the same field and value delay an answer by "
                 f"{DELAY_MS} ms; one first-in-first-out queue per event loop behind one timer, as the mock's `DelayQueue`, and "
                 f"the mock's 256 accepts per wake-up): {floor_slow['requests'] / floor_slow['seconds']:,.0f} req/s, held "
                 f"{floor_slow['held']:,}, {floor_opened}, {floor_slow['overflows']:,} handshakes dropped; busy: the server's core "
                 f"{100 * floor_slow['busy'][0]:.0f} %; delayed p50 {floor_slow['p50']:.1f} ms, p99 {floor_slow['p99']:.1f} ms; the "
                 f"undelayed client beside them: p50 {floor_fast['p50']:.3f} ms, p99 {floor_fast['p99']:.3f} ms.")
    shipped, big, per_page = cat["shipped"], cat["big"], cat["per_page"]
    lines.append("")
    lines.append(f"A catalogue of {big:,} products beside one of the shipped size ({shipped}), both generated from the shipped products "
                 f"(`--fixtures`); 64 connections, {args.duration} s, medians of {args.rounds}. A repeated page is answered from the "
                 "rendered-page cache; the 1-item pages rotate over more pages than it holds (64), so each of those requests renders its page. "
                 + "; ".join(f"{count:,} products: first 200 after {ms:,.0f} ms, RSS {rss:.1f} MB idle, {cat['rss_after'][count]:.1f} MB after"
                             for count, (ms, rss) in cat["starts"].items()) + ".")
    lines.append("")
    lines.append("| catalogue | request | bytes | req/s | p50 / p99 ms | errors |")
    lines.append("|---:|---|---:|---:|---:|---:|")
    for count, label in cat["cells"]:
        results = cat["runs"][(count, label)]
        lines.append(f"| {count:,} | {label} | {cat['sizes'][(count, label)]:,} | {median_of(results, 'rps'):,.0f} | "
                     f"{median_of(results, 'p50'):.3f} / {median_of(results, 'p99'):.3f} | "
                     f"{sum(r['errors'] + r['socket_errors'] for r in results):,} |")
    rate = {cell: median_of(results, "rps") for cell, results in cat["runs"].items()}
    (s_first, _, s_rendered), (_, b_last, b_rendered) = cat["cells"][:3], cat["cells"][3:]
    last_ratio = rate[b_last] / rate[s_first]
    rendered_ratio = rate[b_rendered] / rate[s_rendered]
    targets = [
        (f"delayed p99 ≤ 210 ms ({slow['connections']:,} connections), or, where NIO itself misses it, within 5 % of nio-floor's",
         slow["p99"] <= 210 or slow["p99"] <= 1.05 * floor_slow["p99"],
         f"{slow['p99']:.1f} ms (nio-floor {floor_slow['p99']:.1f} ms, {slow['p99'] / floor_slow['p99']:.2f}×)"),
        (f"undelayed client p99 ≤ 5 ms (beside {slow['connections']:,} delayed), or, where NIO itself misses it, within 5 % of "
         "nio-floor's", fast["p99"] <= 5 or fast["p99"] <= 1.05 * floor_fast["p99"],
         f"{fast['p99']:.2f} ms (nio-floor {floor_fast['p99']:.2f} ms, {fast['p99'] / floor_fast['p99']:.2f}×)"),
        (f"{big:,} products: last full page ≥ 1/1.2 of the shipped catalogue's page 1 (req/s)", last_ratio >= 1 / 1.2, f"{last_ratio:.2f}×"),
        (f"{big:,} products: its last pages rendered ≥ 1/1.2 of the shipped catalogue's (req/s)", rendered_ratio >= 1 / 1.2, f"{rendered_ratio:.2f}×"),
    ]
    return lines, targets


def update_readme(text):
    path = os.path.join(ROOT, "README.md")
    with open(path) as f:
        readme = f.read()
    begin, end = "<!-- benchmark:begin -->", "<!-- benchmark:end -->"
    if begin not in readme or end not in readme:
        raise RuntimeError("README.md has no benchmark markers")
    head, rest = readme.split(begin, 1)
    _, tail = rest.split(end, 1)
    with open(path, "w") as f:
        f.write(head + begin + "\n" + text + end + tail)


def growth_section(args, nginx_binary, cores, folder, routes):
    """The growth rows of #24: connections, the journal at its cap, delayed responses (the
    mock and nio-floor taking turns), a large catalogue."""
    log(f"growth: /menu at {', '.join(f'{c:,}' for c in GROWTH_CONNECTIONS)} connections × 2 servers × {args.rounds} rounds, {args.duration} s each")
    connections = connection_growth(args, args.binary, nginx_binary, cores, folder)
    log(f"growth: the journal at its cap, {args.rounds} servers")
    journal = journal_growth(args, args.binary, cores)
    log(f"delayed: {args.delayed_connections:,} connections × 200 ms, plus one undelayed client, {args.delayed_duration} s")
    scenario = os.path.join(ROOT, "Benchmarks", "scenarios", "bench-delay.json")
    limit = str(max(GROWTH_LIMIT, args.delayed_connections + 100))
    makers = {"mock": lambda: Mock(args.binary, cores[1], ["--scenario", scenario, "--max-connections", limit]),
              "floor": lambda: answering(Floor(args.floor, cores[1], folder, {"/menu": routes["/menu"]},
                                               delay=(DELAY_HEADER, DELAY_VALUE, DELAY_MS)))}
    # One run's p99 moves by a third from one run to the next on this VM, either server's:
    # the two take turns, and the row gives the medians of the rounds.
    rounds = {name: [] for name in makers}
    for round_number in range(args.rounds):
        for name in (list(makers) if round_number % 2 == 0 else list(reversed(makers))):
            slow, fast = delayed(args, makers[name], cores, "/menu")
            rounds[name].append((slow, fast))
            log(f"  round {round_number + 1} {name:5}: delayed p99 {slow['p99']:.1f} ms ({slow['held']:,} held), "
                f"undelayed p99 {fast['p99']:.3f} ms")
    delay = {name: combined_delays(results) for name, results in rounds.items()}
    log(f"growth: a catalogue of 100,000 products beside the shipped one, {args.rounds} rounds, {args.duration} s each")
    catalogue = catalogue_growth(args, args.binary, cores, folder)
    return delay, {"connections": connections, "journal": journal, "catalogue": catalogue}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/mock-server"))
    parser.add_argument("--contract-timing", default=os.path.join(ROOT, "Benchmarks/.build/release/contract-timing"))
    parser.add_argument("--floor", default=os.path.join(ROOT, "Benchmarks/.build/release/nio-floor"))
    parser.add_argument("--dynamic-binary", default=os.path.join(ROOT, ".build-dynamic/release/mock-server"),
                        help="the binary `swift build -c release` makes (Swift runtime linked dynamically), measured beside the static one")
    parser.add_argument("--servers", type=int, default=1000, help="per-test servers started for their figure")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=3, help="seconds per wrk run")
    parser.add_argument("--delayed-connections", type=int, default=10_000)
    parser.add_argument("--delayed-duration", type=int, default=10)
    parser.add_argument("--million", type=int, default=1_000_000, help="requests for the memory figure")
    parser.add_argument("--startups", type=int, default=11)
    parser.add_argument("--time-limit", type=int, default=1500, help="the whole run stops after this many seconds")
    parser.add_argument("--quick", action="store_true", help="one short round of everything: proves the script works, figures are rough")
    parser.add_argument("--readme", action="store_true", help="write the results into README.md")
    parser.add_argument("--only", choices=["growth", "tls"], help="only these rows (nginx tuned on /menu alone), printed, not written to results.md")
    args = parser.parse_args()
    if args.quick:
        # One round of everything, but 3 s per measurement: a 1 s round is too short for a ratio.
        # The delayed run keeps 6 s: up to 3 of them go to opening its 10,000 connections.
        args.rounds, args.duration, args.delayed_duration, args.million, args.startups, args.servers = 1, 3, 6, 100_000, 5, 300
    if args.readme and args.only:
        parser.error("--readme needs the whole run, not --only")
    # wrk and each server hold 10,000 connections in the growth rows (run.sh raises the limit too).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(65536, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if wanted != resource.RLIM_INFINITY and wanted < max(GROWTH_CONNECTIONS[-1], args.delayed_connections) + 1000:
        GROWTH_CONNECTIONS[:] = [count for count in GROWTH_CONNECTIONS if count + 1000 <= wanted]
        args.delayed_connections = min(args.delayed_connections, wanted - 1000)
        log(f"warning: the open-file limit is {wanted}: growth rows at {', '.join(map(str, GROWTH_CONNECTIONS))} connections, "
            f"{args.delayed_connections} delayed")

    def out_of_time(*_):
        stop_all()
        log(f"error: the benchmark passed its time limit of {args.time_limit} s")
        os._exit(3)
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(args.time_limit)

    nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"
    tools = (("mock-server", args.binary), ("contract-timing", args.contract_timing), ("nio-floor", args.floor), ("nginx", nginx_binary),
             ("the dynamically linked mock-server", args.dynamic_binary))
    for tool, path in tools:
        if args.only and tool in ("contract-timing", "the dynamically linked mock-server") or args.only == "growth" and tool == "nio-floor":
            continue
        # --quick (CI) measures it only if it is there: run.sh builds it for the full run
        # alone, a second whole build (10 minutes on 2 cores).
        if args.quick and tool == "the dynamically linked mock-server" and not os.access(path, os.X_OK):
            continue
        if not os.access(path, os.X_OK):
            sys.exit(f"error: {tool} not found at {path} (Benchmarks/run.sh builds and installs everything)")
    for tool in ("wrk", "h2load", "openssl"):
        if not shutil.which(tool):
            sys.exit(f"error: {tool} not found (Benchmarks/run.sh installs it)")
    cores = (0, 1) if (os.cpu_count() or 1) >= 2 else (None, None)

    folder = tempfile.mkdtemp(prefix="mock-bench-")
    os.chmod(folder, 0o755)  # nginx's worker may run as another user
    try:
        # The same bytes for both: what the mock serves is copied into nginx's root.
        mock = Mock(args.binary, cores[1])
        page = json.load(urllib.request.urlopen(mock.base + "/api/products?page_no=1&items_per_page=20"))
        image = [i["url"] for p in page["pages"] for i in p.get("images", [])] or [p["thumbnail"] for p in page["pages"]]
        image_path = "/" + image[0].split("/", 3)[3]
        targets = {"menu": "/menu", "page": "/api/products?page_no=1&items_per_page=20", "image": image_path}
        www = os.path.join(folder, "www")
        sizes, routes = {}, {}
        for label, file in (("menu", "menu.json"), ("page", "page.json"), ("image", image_path.lstrip("/"))):
            answer = urllib.request.urlopen(mock.base + targets[label])
            data = answer.read()
            routes[targets[label]] = (file, answer.headers["Content-Type"])
            sizes[label] = f"{len(data):,} B"
            os.makedirs(os.path.dirname(os.path.join(www, file)), exist_ok=True)
            with open(os.path.join(www, file), "wb") as f:
                f.write(data)
        for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        tuned_on = {"menu": targets["menu"]} if args.only else targets
        log(f"nginx at its best: {len(NGINX_FILE_IO)} settings × {len(tuned_on)} routes, {args.duration} s each")
        nginx_choice = tune_nginx(args, nginx_binary, cores, folder, tuned_on)
        log(f"  kept: {nginx_choice[0]}")
        if args.only == "growth":
            stop(mock.proc)
            delay, growth = growth_section(args, nginx_binary, cores, folder, routes)
            lines, targets_met = growth_report(args, growth, delay)
            lines.insert(0, f"Growth only, {datetime.date.today().isoformat()}: nginx {nginx_choice[0]} (fastest on /menu of "
                         + ", ".join(f"{name} {rate:,.0f}" for name, rate in sorted(nginx_choice[1].items(), key=lambda item: -item[1]))
                         + f" req/s); wrk on core 0, the server on core 1. Produced by `Benchmarks/run.sh --only growth{' --quick' if args.quick else ''}`.")
            lines += ["", "| target | result | met |", "|---|---:|:---:|"]
            lines += [f"| {name} | {value} | {'yes' if met else '**no**'} |" for name, met, value in targets_met]
            print("\n".join(lines))
            log("every target met" if all(met for _, met, _ in targets_met) else "some targets missed (see the table)")
            return
        if args.only == "tls":
            stop(mock.proc)
            tls_runs = tls(args, args.binary, nginx_binary, args.floor, cores, folder)
            print(f"TLS on every server: {', '.join(next(iter(tls_runs['mock-server'][0]['tls'])))}; "
                  f"{tls_runs['mock-server'][0]['tickets']} session tickets per handshake")
            for key in ("h1_keepalive", "h1_handshakes", "h2_keepalive", "h2_handshakes", "h1_handshake_cpu", "h2_handshake_cpu",
                        "h1_handshake_busy", "h2_handshake_busy"):
                m, n, f = (median_of(tls_runs[name], key) for name in ("mock-server", "nginx", "nio-floor"))
                print(f"{key:17} mock {m:>9,.2f}  nginx {n:>9,.2f}  floor {f:>9,.2f}  mock/nginx {m / n:.2f}×  mock/floor {m / f:.2f}×  floor/nginx {f / n:.2f}×")
            return
        nginx = Nginx(nginx_binary, cores[1], folder)
        floor = Floor(args.floor, cores[1], folder, routes)
        # The binary users get from `swift build -c release` (#24), in the same rounds.
        dynamic = None
        if os.access(args.dynamic_binary, os.X_OK):
            dynamic = Mock(args.dynamic_binary, cores[1])
            dynamic.name = DYNAMIC
        for label, path in targets.items():
            a = urllib.request.urlopen(mock.base + path).read()
            for other in (nginx, floor):
                if urllib.request.urlopen(other.base + path).read() != a:
                    raise RuntimeError(f"{label}: {other.name} and the mock serve different bytes")
            # Its absolute URLs name its own port: the same length, other digits.
            if dynamic and len(urllib.request.urlopen(dynamic.base + path).read()) != len(a):
                raise RuntimeError(f"{label}: the two builds of the mock serve answers of different sizes")

        log(f"throughput and latency: {args.rounds} rounds × {len(targets)} routes × 2 connection counts × 4 servers, {args.duration} s each")
        runs = throughput(args, [mock, nginx, floor] + ([dynamic] if dynamic else []), targets, cores)
        if dynamic:
            stop(dynamic.proc)
        stop(mock.proc)
        stop(nginx.proc)
        stop(floor.proc)

        delay, growth = growth_section(args, nginx_binary, cores, folder, routes)

        log("start-up to first 200")
        starts = startup({"mock": lambda: Mock(args.binary, cores[1]),
                          "nginx": lambda: Nginx(nginx_binary, cores[1], folder),
                          "nio-floor": lambda: answering(Floor(args.floor, cores[1], folder, routes))}, args.startups)
        mock_start, nginx_start, floor_start = starts["mock"], starts["nginx"], starts["nio-floor"]
        log(f"  mock {mock_start[0]:.1f} ms, nginx {nginx_start[0]:.1f} ms, nio-floor {floor_start[0]:.1f} ms")

        log(f"memory over {args.million:,} requests")
        mem = memory(args, args.binary, cores, "/menu")
        log("  " + ", ".join(f"{n:,}: {r:.1f} MB" for n, r in mem[2]))

        log(f"TLS: {args.rounds} rounds × 3 servers; HTTP/1.1 and HTTP/2, keep-alive and handshakes")
        tls_runs = tls(args, args.binary, nginx_binary, args.floor, cores, folder)
        log("start-up with --tls and an existing CA, beside plain")
        tls_starts = tls_startup(args.binary, cores, folder, args.startups)
        log(f"  plain {tls_starts['plain'][0]:.1f} ms, tls {tls_starts['tls'][0]:.1f} ms")

        log("contract suites")
        contracts = contract_timing(args.contract_timing, 1 if args.quick else 3)
        log(f"a server per test: {args.servers} starts, first answers and stops")
        per_test = servers_per_test(args.contract_timing, args.servers)
        log(f"  median {per_test['median_ms']:.2f} ms, p99 {per_test['p99_ms']:.2f} ms")

        text, met = report(args, runs, targets, delay, (mock_start, nginx_start, floor_start), mem, contracts, sizes, tls_runs, tls_starts,
                           nginx_choice, per_test, growth)
        print(text)
        with open(os.path.join(ROOT, "Benchmarks", "results.md"), "w") as f:
            f.write(text)
        if args.readme:
            update_readme(text)
        log("every target met" if met else "some targets missed (see the table)")
    finally:
        stop_all()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
