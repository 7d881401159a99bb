#!/usr/bin/env python3
"""The Pact round trip (#23), with the reference Pact core (pact-python's pact_ffi):

1. A client session against a live mock-server, for each API: reads, writes, a
   scenario's error answer, a transport fault (which a Pact cannot express).
2. The Pact of it, exported both ways: `mock-server pact ...` (V4, and V3) and
   `GET /__admin/pact`.
3. A Pact verifier replays every file against a fresh mock-server as the provider, whose
   `POST /__admin/pact/state` sets up the provider states the file names: it must pass.
4. The same Pact changed by hand to expect a wrong field must fail.

Prints a closing `N passed, N failed` line; exits 1 on failure.
Needs: pact-python (PyPI) — `.ci/run` installs it.
Usage: python3 Tests/Pact/pact_verify_test.py [path/to/mock-server]
"""
import base64, json, os, subprocess, sys, tempfile, urllib.request

os.environ.setdefault("PACT_DO_NOT_TRACK", "true")
from pact import Verifier  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "mock-server")
VENDOR = "c4dedb6a-6d36-11ec-abfa-d5e5a5f1d3c1"
results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("✔ " if condition else "✘ ") + name + ("" if condition else f" — {detail}"), flush=True)


def start():
    server = subprocess.Popen([BINARY, "--port", "0", "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline().strip()
    if not line.startswith("Listening on "):
        raise RuntimeError(f"the server did not start: {line!r}")
    return server, line.removeprefix("Listening on ")


def request(base, path, method="GET", body=None, headers=None):
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except (urllib.error.URLError, ConnectionError) as error:  # a fault: no answer at all
        return 0, str(error).encode()


def restaurant_session(base):
    request(base, "/categories")
    request(base, "/menu?category=soups")
    request(base, "/images/5.png")
    request(base, "/order", "POST", b'{"menuIds": [1, 5]}', {"Content-Type": "application/json"})
    # A scenario's answers: the first orders fail, then one succeeds (provider states replay them).
    request(base, "/__admin/scenario", "PUT", b'{"name": "order-fails-then-succeeds"}', {"Content-Type": "application/json"})
    for _ in range(3):
        request(base, "/order", "POST", b'{"menuIds": [2]}', {"Content-Type": "application/json"})
    request(base, "/__admin/scenario", "PUT", b'{"name": "happy-path"}', {"Content-Type": "application/json"})
    # A reset cannot be written as a Pact: it is skipped.
    request(base, "/menu?category=salads", headers={"X-Mock-Scenario": "connection-reset"})


def multipart(params, image):
    boundary = "PactBoundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json\r\n\r\n"
            f"{json.dumps(params)}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"images\"; filename=\"lamp.png\"\r\n"
            f"Content-Type: image/png\r\n\r\n").encode() + image + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def openmarket_session(base):
    request(base, "/healthChecker")
    request(base, "/api/products?page_no=1&items_per_page=10")
    request(base, "/api/products/16")
    _, image = request(base, "/market-images/origin/item01.png")
    body, content_type = multipart({"name": "Pact Lamp", "descriptions": "A reading lamp for the desk", "price": 25000, "currency": "KRW",
                                    "discounted_price": 0, "stock": 3, "secret": "mart1234"}, image)
    status, created = request(base, "/api/products", "POST", body, {"Content-Type": content_type, "identifier": VENDOR})
    check("the create went through", status == 201, status)
    new_id = json.loads(created)["id"]
    request(base, f"/api/products/{new_id}")
    request(base, "/api/products/16", "PATCH", b'{"stock": 42, "secret": "mart1234"}',
            {"Content-Type": "application/json", "identifier": VENDOR})
    _, secret = request(base, "/api/products/16/secret", "POST", b'{"secret": "mart1234"}',
                        {"Content-Type": "application/json", "identifier": VENDOR})
    request(base, f"/api/products/16/{secret.decode()}", "DELETE", headers={"identifier": VENDOR})
    request(base, "/api/products/16")
    request(base, "/api/products?page_no=1&items_per_page=10")


def verify(pact_file, provider, label, expect_pass=True):
    server, base = start()
    try:
        verifier = (Verifier(provider, host="127.0.0.1").add_transport(url=base)
                    .state_handler(base + "/__admin/pact/state", teardown=False, body=True).add_source(pact_file))
        try:
            verifier.verify()
            passed = True
        except Exception:  # the verifier raises when an interaction does not match
            passed = False
        output = verifier.output(strip_ansi=True)
        if expect_pass:
            check(f"{label}: the verifier passes", passed, output[-3000:])
        else:
            check(f"{label}: the verifier fails", not passed, output[-3000:])
        return output
    finally:
        server.terminate()
        server.wait(timeout=10)


def main():
    work = tempfile.mkdtemp(prefix="pact-")
    try:
        for api, provider, session, expected_skip in [
            ("restaurant", "Restaurant", restaurant_session, "connectionReset"),
            ("openmarket", "OpenMarket", openmarket_session, None),
        ]:
            server, base = start()
            try:
                session(base)
                v4 = os.path.join(work, f"{api}-v4.json")
                v3 = os.path.join(work, f"{api}-v3.json")
                for spec, path in (("4", v4), ("3", v3)):
                    run = subprocess.run([BINARY, "pact", "--server", base, "--consumer", "OrderApp", "--provider", provider,
                                          "--spec", spec, "--out", path], capture_output=True, text=True, timeout=60)
                    check(f"{api}: `mock-server pact --spec {spec}` writes the file", run.returncode == 0 and os.path.exists(path), run.stderr)
                _, admin = request(base, f"/__admin/pact?consumer=OrderApp&provider={provider}")
            finally:
                server.terminate()
                server.wait(timeout=10)
            pact = json.load(open(v4))
            check(f"{api}: the admin API gives the same Pact", json.loads(admin) == pact)
            interactions = pact["interactions"]
            check(f"{api}: V4 Synchronous/HTTP interactions with keys",
                  len(interactions) >= 5 and all(i["type"] == "Synchronous/HTTP" and i["key"] for i in interactions), len(interactions))
            check(f"{api}: the metadata says V4", pact["metadata"]["pactSpecification"]["version"] == "4.0")
            skipped = pact["metadata"]["mockServer"]["skipped"]
            if expected_skip:
                check(f"{api}: the fault is skipped, and said so", any(expected_skip in s for s in skipped), skipped)
                check(f"{api}: nothing of the faulted request is in the Pact",
                      not any("salads" in i["description"] for i in interactions), [i["description"] for i in interactions])
            pact3 = json.load(open(v3))
            check(f"{api}: the V3 file says V3", pact3["metadata"]["pactSpecification"]["version"] == "3.0.0")
            if api == "openmarket":
                # V3 has no binary request bodies: the multipart create is left out, and said so.
                check(f"{api}: V3 skips the multipart create, saying why",
                      any("POST /api/products" in s and "cannot be written in Pact V3" in s for s in pact3["metadata"]["mockServer"]["skipped"]),
                      pact3["metadata"]["mockServer"]["skipped"])

            verify(v4, provider, f"{api} V4")
            verify(v3, provider, f"{api} V3")

            # Tampered: one interaction now expects a field the provider never sends.
            tampered = json.loads(json.dumps(pact))
            target = next(i for i in tampered["interactions"]
                          if isinstance(i["response"].get("body", {}).get("content"), dict))
            target["response"]["body"]["content"]["expected_by_hand"] = "a field the API does not have"
            tampered_file = os.path.join(work, f"{api}-tampered.json")
            json.dump(tampered, open(tampered_file, "w"))
            output = verify(tampered_file, provider, f"{api} tampered", expect_pass=False)
            check(f"{api} tampered: the verifier names the field", "expected_by_hand" in output, output[-2000:])
    except Exception as error:
        check("the Pact test ran to the end", False, repr(error))
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
