#!/usr/bin/env python3
"""End to end: a HAR from a real capturing tool (mitmproxy's mitmdump) imported and replayed.

1. Starts the built `mock-server` on port 0 and `mitmdump` in front of it as a reverse
   proxy writing a HAR on exit (`--set hardump=FILE`).
2. Drives a realistic session through the proxy: categories, menus, an order, images, an
   Open Market page, a detail, a multipart create with an image and the vendor's secret,
   a secret lookup, an update, a repeated page (answered differently after the create),
   a repeated GET, a 404; some requests carry an Authorization header.
3. Stops mitmdump cleanly (SIGINT), so it writes the HAR.
4. Runs `mock-server import-har FILE --out DIR --name captured` (which runs the
   `mock-server-record` built beside it: build both, e.g. `swift build`).
5. Serves `--fixtures DIR --scenario captured` on a fresh port and replays every captured
   request in order: each answer must match the capture byte for byte (status, Content-Type,
   body). Once with the `Host` the capture had (the bodies' absolute URLs are then the
   captured ones exactly), once with the replay's own (they must name the replay server).
6. Checks that no written file holds a secret of the session.

Prints a closing `N passed, N failed` line; exits 1 on any mismatch, printing what differed.
Needs: mitmproxy (PyPI; `.ci/run` installs it). Usage:
    python3 Tests/HAR/mitmproxy_har_test.py [path/to/mock-server]
"""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.error, urllib.parse, urllib.request, uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "mock-server")
FIXTURES = os.path.join(ROOT, "Fixtures")
VENDOR = "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"   # the built-in Open Market vendor 1
PASSWORD = "mart1234"
TOKEN = "Bearer har-test-token-6f1e"
SECRETS = [VENDOR, PASSWORD, TOKEN.split()[1]]
results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f" — {detail}"), flush=True)
    return bool(condition)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def start_server(*arguments):
    server = subprocess.Popen([BINARY, *arguments, "--port", "0", "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline().strip()
    if not line.startswith("Listening on http://127.0.0.1:"):
        server.kill()
        raise SystemExit(f"mock-server did not start: {line!r}")
    return server, line.removeprefix("Listening on ")


def stop(process, sig=signal.SIGTERM, seconds=20):
    if process and process.poll() is None:
        process.send_signal(sig)
        try:
            return process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            return process.wait()
    return process.returncode if process else None


def send(base, method, path, body=None, headers=None):
    """(status, Content-Type, body bytes); error statuses are answers too."""
    request = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.headers.get("Content-Type"), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type"), error.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


urllib.request.install_opener(urllib.request.build_opener(NoRedirect))


def multipart(boundary, params, image, filename, mime):
    lines = [f"--{boundary}", 'Content-Disposition: form-data; name="params"', "Content-Type: application/json", ""]
    body = ("\r\n".join(lines) + "\r\n").encode() + params + b"\r\n"
    head = [f"--{boundary}", f'Content-Disposition: form-data; name="images"; filename="{filename}"', f"Content-Type: {mime}", ""]
    body += ("\r\n".join(head) + "\r\n").encode() + image + b"\r\n"
    return body + f"--{boundary}--\r\n".encode()


def session(proxy):
    """The requests a client makes, each sent through the proxy: a list of
    (method, path, body, headers, status, content type, body) as the client got them."""
    calls = []

    def call(method, path, body=None, headers=None):
        status, kind, data = send(proxy, method, path, body, headers)
        calls.append((method, path, body, dict(headers or {}), status, kind, data))
        return status, data

    json_headers = {"Content-Type": "application/json"}
    vendor_json = {"Content-Type": "application/json", "identifier": VENDOR}
    call("GET", "/categories", headers={"Authorization": TOKEN})
    _, menu = call("GET", "/menu?category=entrees", headers={"Authorization": TOKEN})
    call("GET", "/menu")
    call("POST", "/order", json.dumps({"menuIds": [1, 5]}).encode(), json_headers)
    image_url = json.loads(menu)["items"][0]["image_url"]
    call("GET", urllib.parse.urlsplit(image_url).path)
    _, page = call("GET", "/api/products?page_no=1&items_per_page=3")
    first = json.loads(page)["pages"][0]["id"]
    call("GET", f"/api/products/{first}")

    with open(os.path.join(FIXTURES, "restaurant", "images", "1.png"), "rb") as f:
        png = f.read()
    params = json.dumps({"name": "HAR Pencil", "descriptions": "Captured by mitmproxy, replayed by the mock.",
                         "price": 1200, "currency": "KRW", "stock": 3, "secret": PASSWORD}).encode()
    boundary = f"Boundary-{uuid.uuid4()}"
    status, created = call("POST", "/api/products", multipart(boundary, params, png, "pencil.png", "image/png"),
                           {"Content-Type": f"multipart/form-data; boundary={boundary}", "identifier": VENDOR})
    if status >= 300:
        raise SystemExit(f"the create was refused ({status}): {created[:300]!r}")
    product = json.loads(created)
    thumbnail = urllib.parse.urlsplit(product["thumbnail"]).path
    call("GET", thumbnail)
    call("POST", f"/api/products/{product['id']}/secret", json.dumps({"secret": PASSWORD}).encode(), vendor_json)
    call("PATCH", f"/api/products/{product['id']}", json.dumps({"stock": 4, "secret": PASSWORD}).encode(), vendor_json)
    call("GET", "/api/products?page_no=1&items_per_page=3")      # repeated: the new product is on it now
    call("GET", "/categories", headers={"Authorization": TOKEN})  # repeated, the same answer
    call("GET", "/no-such-route")                                 # the mock's 404, captured as any answer
    return calls


def main():
    work = tempfile.mkdtemp(prefix="har-e2e-")
    har = os.path.join(work, "session.har")
    out = os.path.join(work, "out")
    mock = proxy = replay = None
    try:
        mitmdump = shutil.which("mitmdump")
        if not check("mitmdump is installed", mitmdump, "pip install mitmproxy"):
            return
        version = subprocess.run([mitmdump, "--version"], capture_output=True, text=True).stdout.splitlines()
        print("   " + (version[0] if version else "mitmdump (version unknown)"))

        mock, upstream = start_server()
        port = free_port()
        proxy = subprocess.Popen([mitmdump, "--mode", f"reverse:{upstream}", "--listen-host", "127.0.0.1", "-p", str(port),
                                  "--set", f"hardump={har}", "--set", f"confdir={os.path.join(work, 'mitmproxy')}", "-q"],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not check("mitmdump listens as a reverse proxy", wait_for_port(port), "no listener"):
            return
        calls = session(f"http://127.0.0.1:{port}")
        check(f"the session went through the proxy ({len(calls)} requests)", len(calls) == 14)

        code = stop(proxy, signal.SIGINT)
        proxy_output = proxy.stdout.read()
        check("mitmdump stops cleanly on SIGINT", code == 0, f"exit {code}: {proxy_output[-500:]}")
        if not check("mitmdump wrote the HAR", os.path.exists(har), proxy_output[-500:]):
            return
        with open(har, encoding="utf-8") as f:
            captured = json.load(f)["log"]["entries"]
        check("the HAR holds every request", len(captured) == len(calls), f"{len(captured)} entries")

        imported = subprocess.run([BINARY, "import-har", har, "--out", out, "--name", "captured"], capture_output=True, text=True)
        print("   " + imported.stdout.strip().replace("\n", "\n   "))
        if not check("import-har exits 0", imported.returncode == 0, imported.stderr):
            return
        check("import-har reports the redactions", "Redacted" in imported.stdout and "identifier header" in imported.stdout, imported.stdout)

        replay, base = start_server("--fixtures", out, "--scenario", "captured")
        captured_host = upstream.removeprefix("http://")
        replay_host = base.removeprefix("http://")
        for label, host in [("with the captured Host", captured_host), ("with the replay's own Host", replay_host)]:
            send(base, "POST", "/__admin/scenario/reset", b"{}", {"Content-Type": "application/json"})
            mismatches = []
            for index, (method, path, body, headers, status, kind, data) in enumerate(calls):
                got_status, got_kind, got = send(base, method, path, body, {**headers, "Host": host})
                want = data if host == captured_host else data.replace(captured_host.encode(), replay_host.encode())
                if (got_status, got_kind, got) != (status, kind, want):
                    mismatches.append(f"#{index} {method} {path}: status {got_status} (captured {status}), Content-Type {got_kind!r} "
                                      f"(captured {kind!r}), body {len(got)} bytes {got[:120]!r} (captured {len(want)} bytes {want[:120]!r})")
            check(f"every answer replays byte for byte {label} (status, Content-Type, body)", not mismatches, "\n    ".join([""] + mismatches))

        written = {}
        for folder, _, files in os.walk(out):
            for name in files:
                with open(os.path.join(folder, name), "rb") as f:
                    written[os.path.relpath(os.path.join(folder, name), out)] = f.read()
        leaks = [f"{path} holds {secret!r}" for path, data in written.items() for secret in SECRETS if secret.encode() in data]
        check(f"no written file holds a secret ({len(written)} files)", written and not leaks, "; ".join(leaks))
        check("images were written as images", any(p.endswith(".png") and d.startswith(b"\x89PNG") for p, d in written.items()),
              sorted(written))
        scenario = json.loads(written.get(os.path.join("scenarios", "captured.json"), b"{}"))
        lookup = [r for r in scenario.get("rules", []) if r["request"]["path"].endswith("/secret")]
        check("the redacted secret lookup matches any secret (json contains, without it)",
              lookup and lookup[0]["request"].get("body") == {"json": {}}, lookup)
        repeated = [r for r in scenario.get("rules", []) if r["name"] == "GET /api/products?page_no=1&items_per_page=3"]
        check("the repeated page is a sequence of its two answers", repeated and len(repeated[0].get("responses", [])) == 2, repeated)
    finally:
        for process in (proxy, mock, replay):
            stop(process)
        shutil.rmtree(work, ignore_errors=True)
        passed = sum(1 for _, ok in results if ok)
        print(f"{passed} passed, {len(results) - passed} failed")


if __name__ == "__main__":
    main()
    sys.exit(0 if results and all(ok for _, ok in results) else 1)
