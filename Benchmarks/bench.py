#!/usr/bin/env python3
"""MockServer against nginx in the same run: the same fixture bytes on loopback, driven by
wrk, interleaved over several rounds, client and server pinned to different cores.

Run it with Benchmarks/run.sh (builds in release mode, installs wrk and nginx if missing).
It prints a table of medians and ratios to nginx, checks the targets of issue #7, writes
Benchmarks/results.md and, with --readme, the results section of README.md. It stops by
itself: every step has a time limit and the whole run has --time-limit.
"""
import argparse
import datetime
import json
import os
import platform
import re
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
events {{ worker_connections 8192; }}
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
        location = /api/products {{ try_files /page.json =404; }}
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

    def __init__(self, binary, core, folder, tls=None, file_io=None):
        self.port = free_port()
        conf = os.path.join(folder, f"nginx-{self.port}.conf")
        listen = f"listen 127.0.0.1:{self.port}"
        text = NGINX_CONF.format(tmp=folder, port=self.port, file_io=NGINX_FILE_IO[file_io or NGINX_BEST[0]])
        if tls:
            # The same certificate and key as the mock; HTTP/2 by ALPN; no session reuse
            # on either side, so every new connection is a full handshake.
            text = text.replace(listen + ";", f"{listen} ssl http2;\n        ssl_certificate {tls[0]};\n"
                                f"        ssl_certificate_key {tls[1]};\n        ssl_protocols TLSv1.2 TLSv1.3;\n"
                                f"        ssl_session_cache off;\n        ssl_session_tickets off;")
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


class Floor:
    """nio-floor: the least a SwiftNIO server does to answer the same bytes (one
    pre-encoded buffer per request, NIO's decoder, one event loop)."""
    name = "nio-floor"

    def __init__(self, binary, core, folder, routes):
        mappings = [f"{path}|{file}|{content_type}" for path, (file, content_type) in routes.items()]
        self.proc = subprocess.Popen(pinned(core, [binary, os.path.join(folder, "www"), *mappings]),
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


def wrk(url, connections, seconds, core, headers=(), timeout="5s"):
    argv = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", timeout, url]
    for header in headers:
        argv[1:1] = ["-H", header]
    out = subprocess.run(pinned(core, argv), capture_output=True, text=True, timeout=seconds + 60).stdout
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
    result["socket_errors"] = sum(map(int, match.groups())) if match else 0
    if result["requests"] == 0 or "p99" not in result:
        raise RuntimeError(f"wrk gave no figures for {url}:\n{out}")
    return result


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


def delayed(args, binary, cores, path):
    """1,000 connections each waiting a fixed 200 ms, and one undelayed client beside them."""
    scenario = os.path.join(ROOT, "Benchmarks", "scenarios", "bench-delay.json")
    mock = Mock(binary, cores[1], ["--scenario", scenario])
    seconds = args.delayed_duration
    slow = subprocess.Popen(pinned(cores[0], ["wrk", "-t1", f"-c{args.delayed_connections}", f"-d{seconds}s", "--latency",
                                              "--timeout", "5s", "-H", "X-Mock-Scenario: bench-delay", mock.base + path]),
                            stdout=subprocess.PIPE, text=True)
    time.sleep(1)  # let the 1,000 connections open before the fast client measures
    fast = wrk(mock.base + path, 1, seconds - 2, cores[0], headers=["X-Mock-Scenario: happy-path"])
    out, _ = slow.communicate(timeout=seconds + 60)
    slow_result = {}
    for percent, value, unit in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M):
        slow_result[f"p{percent}"] = float(value) * UNITS[unit]
    match = re.search(r"(\d+) requests in", out)
    slow_result["requests"] = int(match.group(1)) if match else 0
    stop(mock.proc)
    if "p99" not in slow_result:
        raise RuntimeError(f"the delayed wrk gave no figures:\n{out}")
    return slow_result, fast


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
    return {"rps": float(match.group(3)), "requests": int(done.group(1)), "errors": int(done.group(3)) + int(done.group(4)),
            "seconds": float(match.group(1)) / (1000 if match.group(2) == "ms" else 1)}


def tls(args, binary, nginx_binary, cores, folder):
    """HTTPS against nginx with TLS: the same certificate, the same bytes, the same run.
    Keep-alive req/s over HTTP/1.1 (wrk) and HTTP/2 (h2load, 10 streams per connection),
    and full handshakes per second (a new connection per request: wrk with
    `Connection: close`; h2load with one request per client)."""
    cert, key = make_certificate(binary, folder)
    mock = Mock(binary, cores[1], ["--tls", "--tls-cert", cert, "--tls-key", key], tls=True)
    context = ssl.create_default_context(cafile=os.path.join(folder, "ca", "ca.pem"))
    # The menu's image URLs name the scheme and port the client used: nginx gets these bytes.
    a = urllib.request.urlopen(mock.base + "/menu", context=context).read()
    with open(os.path.join(folder, "www", "menu.json"), "wb") as f:
        f.write(a)
    nginx = Nginx(nginx_binary, cores[1], folder, tls=(cert, key))
    b = urllib.request.urlopen(nginx.base + "/menu", context=context).read()
    if a != b:
        raise RuntimeError("over TLS, nginx and the mock serve different bytes")
    runs = {}
    seconds = args.duration
    for server in (mock, nginx):   # warm-up
        wrk(server.base + "/menu", 16, 1, cores[0])
    for round_number in range(args.rounds):
        order = (mock, nginx) if round_number % 2 == 0 else (nginx, mock)
        for server in order:
            keep = wrk(server.base + "/menu", 64, seconds, cores[0])
            # A new connection per request, the same client for both servers: h2load over
            # HTTP/1.1, one request per client, which does not resume TLS sessions (wrk with
            # Connection: close resumed where a server allows it, so the mock, whose TLS
            # library keeps a session cache, did half the work of nginx's full handshakes).
            fresh = h2load(server.base + "/menu", 200, 200, 1, cores[0], h1=True)
            h2 = h2load(server.base + "/menu", 16, max(2000, int(keep["rps"] * seconds)), 10, cores[0])
            h2_fresh = h2load(server.base + "/menu", 200, 200, 1, cores[0])   # one request per connection
            row = {"h1_keepalive": keep["rps"], "h1_handshakes": fresh["rps"], "h2_keepalive": h2["rps"], "h2_handshakes": h2_fresh["rps"],
                   "errors": keep["errors"] + keep["socket_errors"] + fresh["errors"] + h2["errors"] + h2_fresh["errors"]}
            runs.setdefault(server.name, []).append(row)
            log(f"  round {round_number + 1} TLS {server.name:11} h1 keep-alive {row['h1_keepalive']:>8.0f} req/s, "
                f"h1 handshakes {row['h1_handshakes']:>6.0f}/s, h2 keep-alive {row['h2_keepalive']:>8.0f} req/s, "
                f"h2 handshakes {row['h2_handshakes']:>6.0f}/s, errors {row['errors']}")
    stop(mock.proc)
    stop(nginx.proc)
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


def report(args, runs, targets, delay, starts, mem, contracts, sizes, tls_runs, tls_starts, nginx_choice, per_test):
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
    lines.append("Over TLS (the same P-256 certificate from the mock's CA for both; TLS 1.3; no session reuse), `/menu`:")
    lines.append("")
    lines.append("| | mock req/s | nginx req/s | ratio |")
    lines.append("|---|---:|---:|---:|")
    tls_figures = {}
    for key, label in (("h1_keepalive", "HTTP/1.1 keep-alive, 64 conns (wrk)"), ("h1_handshakes", "HTTP/1.1 one request per connection, 200 conns: handshakes/s (h2load --h1)"),
                       ("h2_keepalive", "HTTP/2 keep-alive, 16 conns × 10 streams (h2load)"), ("h2_handshakes", "HTTP/2 one request per connection, 200 conns: handshakes/s (h2load)")):
        m, n = median_of(tls_runs["mock-server"], key), median_of(tls_runs["nginx"], key)
        tls_figures[key] = m / n
        lines.append(f"| {label} | {m:,.0f} | {n:,.0f} | {m / n:.2f}× |")
    tls_errors = sum(run["errors"] for runs_ in tls_runs.values() for run in runs_)
    slow, fast = delay
    (mock_start, mock_starts), (nginx_start, _) = starts
    (plain_start, _), (tls_start, tls_start_samples) = tls_starts["plain"], tls_starts["tls"]
    idle, marks, _ = mem
    lines.append("")
    lines.append(f"- Delayed: {args.delayed_connections} connections each with a fixed 200 ms delay "
                 f"({slow['requests']:,} requests): observed p50 {slow['p50']:.1f} ms, p99 {slow['p99']:.1f} ms; "
                 f"the undelayed client beside them: p50 {fast['p50']:.3f} ms, p99 {fast['p99']:.3f} ms.")
    lines.append(f"- Start-up to the first 200 (median of {len(mock_starts)} each, the two servers taking turns): mock-server {mock_start:.1f} ms, nginx {nginx_start:.1f} ms.")
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
        ("start-up to the first 200 ≤ nginx's", mock_start <= nginx_start, f"{mock_start:.1f} ms vs {nginx_start:.1f} ms"),
        ("a server per test: median ≤ 2 ms, p99 ≤ 10 ms", per_test["median_ms"] <= 2 and per_test["p99_ms"] <= 10,
         f"{per_test['median_ms']:.2f} / {per_test['p99_ms']:.2f} ms"),
        ("each contract suite ≤ 1.2 s at the default timeout", all(t <= 1.2 for t in contract_seconds), " / ".join(f"{t:.2f}" for t in contract_seconds) + " s"),
        ("HTTPS HTTP/1.1 keep-alive ≥ 1.0× nginx", tls_figures["h1_keepalive"] >= 1.0, f"{tls_figures['h1_keepalive']:.2f}×"),
        ("HTTP/2 keep-alive (h2load) ≥ 0.9× nginx", tls_figures["h2_keepalive"] >= 0.9, f"{tls_figures['h2_keepalive']:.2f}×"),
        ("delayed p99 ≤ 210 ms", slow["p99"] <= 210, f"{slow['p99']:.1f} ms"),
        ("undelayed client p99 ≤ 5 ms", fast["p99"] <= 5, f"{fast['p99']:.2f} ms"),
        ("start-up with --tls and an existing CA ≤ 2× plain", tls_start <= 2 * plain_start, f"{tls_start / plain_start:.2f}×"),
        ("TLS runs without an error (both servers)", tls_errors == 0, f"{tls_errors} errors"),
        ("RSS after 1M requests ≤ 32 MB", marks["full"][1] <= 32 and marks["full"][0] >= args.million, f"{marks['full'][1]:.1f} MB"),
        ("RSS flat from 500k to 1M (≤ 1 MB growth)", marks["full"][1] - marks["half"][1] <= 1.0,
         f"{marks['full'][1] - marks['half'][1]:+.1f} MB"),
    ]
    lines.append("")
    lines.append("| target | result | met |")
    lines.append("|---|---:|:---:|")
    for name, met, value in targets_met:
        lines.append(f"| {name} | {value} | {'yes' if met else '**no**'} |")
    return "\n".join(lines) + "\n", all(met for _, met, _ in targets_met)


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/mock-server"))
    parser.add_argument("--contract-timing", default=os.path.join(ROOT, ".build/release/contract-timing"))
    parser.add_argument("--floor", default=os.path.join(ROOT, ".build/release/nio-floor"))
    parser.add_argument("--servers", type=int, default=1000, help="per-test servers started for their figure")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=3, help="seconds per wrk run")
    parser.add_argument("--delayed-connections", type=int, default=1000)
    parser.add_argument("--delayed-duration", type=int, default=10)
    parser.add_argument("--million", type=int, default=1_000_000, help="requests for the memory figure")
    parser.add_argument("--startups", type=int, default=11)
    parser.add_argument("--time-limit", type=int, default=1200, help="the whole run stops after this many seconds")
    parser.add_argument("--quick", action="store_true", help="one short round of everything: proves the script works, figures are rough")
    parser.add_argument("--readme", action="store_true", help="write the results into README.md")
    args = parser.parse_args()
    if args.quick:
        # One round of everything, but 3 s per measurement: a 1 s round is too short for a ratio.
        args.rounds, args.duration, args.delayed_duration, args.million, args.startups, args.servers = 1, 3, 4, 100_000, 5, 300

    def out_of_time(*_):
        stop_all()
        log(f"error: the benchmark passed its time limit of {args.time_limit} s")
        os._exit(3)
    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(args.time_limit)

    nginx_binary = shutil.which("nginx") or "/usr/sbin/nginx"
    for tool, path in (("mock-server", args.binary), ("contract-timing", args.contract_timing), ("nio-floor", args.floor), ("nginx", nginx_binary)):
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
        log(f"nginx at its best: {len(NGINX_FILE_IO)} settings × {len(targets)} routes, {args.duration} s each")
        nginx_choice = tune_nginx(args, nginx_binary, cores, folder, targets)
        log(f"  kept: {nginx_choice[0]}")
        nginx = Nginx(nginx_binary, cores[1], folder)
        floor = Floor(args.floor, cores[1], folder, routes)
        for label, path in targets.items():
            a = urllib.request.urlopen(mock.base + path).read()
            for other in (nginx, floor):
                if urllib.request.urlopen(other.base + path).read() != a:
                    raise RuntimeError(f"{label}: {other.name} and the mock serve different bytes")

        log(f"throughput and latency: {args.rounds} rounds × {len(targets)} routes × 2 connection counts × 3 servers, {args.duration} s each")
        runs = throughput(args, [mock, nginx, floor], targets, cores)
        stop(mock.proc)
        stop(nginx.proc)
        stop(floor.proc)

        log(f"delayed: {args.delayed_connections} connections × 200 ms, plus one undelayed client, {args.delayed_duration} s")
        delay = delayed(args, args.binary, cores, "/menu")
        log(f"  delayed p99 {delay[0]['p99']:.1f} ms, undelayed p99 {delay[1]['p99']:.3f} ms")

        log("start-up to first 200")
        starts = startup({"mock": lambda: Mock(args.binary, cores[1]),
                          "nginx": lambda: Nginx(nginx_binary, cores[1], folder)}, args.startups)
        mock_start, nginx_start = starts["mock"], starts["nginx"]
        log(f"  mock {mock_start[0]:.1f} ms, nginx {nginx_start[0]:.1f} ms")

        log(f"memory over {args.million:,} requests")
        mem = memory(args, args.binary, cores, "/menu")
        log("  " + ", ".join(f"{n:,}: {r:.1f} MB" for n, r in mem[2]))

        log(f"TLS: {args.rounds} rounds × 2 servers; HTTP/1.1 and HTTP/2, keep-alive and handshakes")
        tls_runs = tls(args, args.binary, nginx_binary, cores, folder)
        log("start-up with --tls and an existing CA, beside plain")
        tls_starts = tls_startup(args.binary, cores, folder, args.startups)
        log(f"  plain {tls_starts['plain'][0]:.1f} ms, tls {tls_starts['tls'][0]:.1f} ms")

        log("contract suites")
        contracts = contract_timing(args.contract_timing, 1 if args.quick else 3)
        log(f"a server per test: {args.servers} starts, first answers and stops")
        per_test = servers_per_test(args.contract_timing, args.servers)
        log(f"  median {per_test['median_ms']:.2f} ms, p99 {per_test['p99_ms']:.2f} ms")

        text, met = report(args, runs, targets, delay, (mock_start, nginx_start), mem, contracts, sizes, tls_runs, tls_starts,
                           nginx_choice, per_test)
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
