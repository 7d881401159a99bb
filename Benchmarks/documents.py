#!/usr/bin/env python3
"""The start of large OpenAPI documents with `mock-server --api`, beside the parse floor in
the same run, and the per-test cost of `.mockServer(api:)` with a large document.

    python3 Benchmarks/documents.py [--rounds N] [--no-build] [--per-test] [NAME=]FILE...

For each document it prints:
  - its size, the files it was read from and its operations;
  - the parse floor: PyYAML's C loader (yaml.CSafeLoader) for YAML, Foundation's
    JSONSerialization for JSON (Benchmarks/DocumentFloor, the same file in the same run),
    medians of N rounds;
  - `OpenAPIDocumentAPI.read` in process (DocumentFloor), and the start of
    `mock-server --port 0 --api FILE` from process start to its `Listening` line, medians;
    the start against the floor (the targets: twice CSafeLoader for YAML, three times
    JSONSerialization for JSON);
  - what the start-up log says it repaired and skipped (one line per kind);
  - GETs: every GET operation of the served document whose parameters can be filled from
    its schemas, asked once; how many answered 2xx with a JSON body valid against the
    documented schema (jsonschema, Draft 2020-12, the served document as the registry).

With --per-test it also times `swift test --skip-build --filter ManyDocumentServersTests`
(forty tests, each with a server of a 1.5 MB document) against the same with one of them,
in the package's debug build (built with `swift build --build-tests` first).

Release binaries are built into the package's .build unless --no-build. The real documents
are not in the repository (Benchmarks/README.md names them and records their figures);
without arguments it runs the committed stand-ins.
"""
import argparse, json, os, re, statistics, subprocess, sys, time, urllib.request

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
STANDINS = os.path.join(ROOT, "Tests", "OpenAPIDocumentAPITests", "Documents", "generated")


# The benchmarks' executables are a package of their own (Benchmarks/Package.swift).
BENCHMARKS = {"document-floor"}


def release(product):
    folder = os.path.join(ROOT, "Benchmarks") if product in BENCHMARKS else ROOT
    return os.path.join(folder, ".build", "release", product)


def build():
    for product in ("mock-server", "document-floor"):
        package = ["--package-path", "Benchmarks"] if product in BENCHMARKS else []
        subprocess.run(["swift", "build", "-c", "release", *package, "--product", product], cwd=ROOT, check=True)


def yaml_floor(path, rounds, split):
    """CSafeLoader on the file; for a split document, on every YAML file in its folder but
    those under an `examples/` folder (code samples, which the mock does not read)."""
    import yaml
    files = [path]
    if split:
        folder = os.path.dirname(path)
        files = [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names
                 if f.endswith((".yml", ".yaml")) and "/examples/" not in os.path.join(d, f) + "/"]
    data = [open(f, "rb").read() for f in files]
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for text in data:
            yaml.load(text, Loader=yaml.CSafeLoader)
        times.append(time.perf_counter() - start)
    return statistics.median(times), len(files)


def floor_tool(path, rounds):
    out = subprocess.run([release("document-floor"), str(rounds), path], capture_output=True, text=True, check=True).stdout
    return dict(field.split("=", 1) for field in out.split())


def start_server(name, path, extra=()):
    started = time.perf_counter()
    process = subprocess.Popen([release("mock-server"), "--port", "0", "--log-level", "warning", "--api", f"{name}={path}", *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    elapsed = time.perf_counter() - started
    match = re.match(r"Listening on (http://\S+)", line)
    if not match:
        process.kill()
        raise SystemExit(f"{path}: mock-server did not start: {line}{process.stderr.read()}")
    return process, match.group(1), elapsed


def stop(process):
    process.terminate()
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return err


def sample(schema, document, depth=0):
    """A simple value of a parameter's schema: its example, default, first enum, or a made one."""
    if "$ref" in schema:
        node = document
        for key in schema["$ref"][2:].split("/"):
            node = node.get(key.replace("~1", "/").replace("~0", "~"), {})
        return sample(node, document, depth + 1) if depth < 8 else "x"
    for key in ("examples",):
        if isinstance(schema.get(key), list) and schema[key]:
            return schema[key][0]
    for key in ("example", "default", "const"):
        if key in schema:
            return schema[key]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if schema.get("format") == "uuid":
        return "3fa85f64-5717-4562-b3fc-2c963f66afa6"
    if schema.get("format") == "date":
        return "2024-01-01"
    if schema.get("format") == "date-time":
        return "2024-01-01T00:00:00Z"
    return "x" * max(1, int(schema.get("minLength", 1)))


def credentials(document, operation):
    """Headers and query items carrying the credentials the operation's first security
    alternative asks for (the mock checks their presence and the Authorization scheme)."""
    requirements = operation.get("security", document.get("security", []))
    schemes = document.get("components", {}).get("securitySchemes", {})
    headers, query = {}, []
    for name in (requirements[0] if requirements else {}):
        scheme = schemes.get(name, {})
        if scheme.get("type") == "http" and scheme.get("scheme", "").lower() == "basic":
            headers["Authorization"] = "Basic dXNlcjpwYXNzd29yZA=="
        elif scheme.get("type") == "apiKey" and scheme.get("in") == "query":
            query.append(f"{urllib.parse.quote(scheme.get('name', name))}=key")
        elif scheme.get("type") == "apiKey" and scheme.get("in") == "cookie":
            headers["Cookie"] = f"{scheme.get('name', name)}=key"
        elif scheme.get("type") == "apiKey":
            headers[scheme.get("name", name)] = "key"
        else:
            headers["Authorization"] = "Bearer token"
    return headers, query


def check_gets(base, name, limit):
    from jsonschema import Draft202012Validator
    document = json.load(urllib.request.urlopen(f"{base}/__admin/openapi/{name}"))
    prefix = ""
    if document.get("servers"):
        url = document["servers"][0]["url"]
        prefix = re.sub(r"^[a-z]+://[^/]+", "", url).rstrip("/")
    counts = {"asked": 0, "valid": 0, "invalid": 0, "other status": 0}
    statuses = {}
    invalid = []
    for path, item in sorted(document.get("paths", {}).items()):
        operation = item.get("get")
        if not operation or counts["asked"] >= limit:
            continue
        parameters = item.get("parameters", []) + operation.get("parameters", [])
        url, query = prefix + path, []
        try:
            for parameter in parameters:
                if "$ref" in parameter:
                    node = document
                    for key in parameter["$ref"][2:].split("/"):
                        node = node[key]
                    parameter = node
                value = sample(parameter.get("schema", {}), document)
                if parameter["in"] == "path":
                    url = url.replace("{" + parameter["name"] + "}", urllib.parse.quote(str(value), safe=""))
                elif parameter["in"] == "query" and parameter.get("required"):
                    query.append(f"{urllib.parse.quote(parameter['name'])}={urllib.parse.quote(str(value).lower() if isinstance(value, bool) else str(value))}")
        except (KeyError, TypeError):
            continue
        headers, keys = credentials(document, operation)
        query += keys
        request = urllib.request.Request(base + url + ("?" + "&".join(query) if query else ""),
                                         headers={**headers, "Accept": "application/json"})
        counts["asked"] += 1
        try:
            response = urllib.request.urlopen(request, timeout=10)
            status, body = response.status, response.read()
            content_type = response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            status, body, content_type = error.code, b"", ""
        if not 200 <= status < 300:
            counts["other status"] += 1
            statuses[status] = statuses.get(status, 0) + 1
            continue
        responses = operation.get("responses", {})
        chosen = responses.get(str(status)) or responses.get("2XX") or responses.get("default") or {}
        while "$ref" in chosen:
            node = document
            for key in chosen["$ref"][2:].split("/"):
                node = node[key.replace("~1", "/")]
            chosen = node
        schema = next((media.get("schema") for kind, media in chosen.get("content", {}).items() if "json" in kind and "schema" in media), None)
        if schema is None or "json" not in content_type or not body:
            counts["valid"] += 1
            continue
        # `#/components/…` resolves in the schema's own root: the document's components are put there.
        validator = Draft202012Validator({**schema, "components": document.get("components", {})})
        try:
            errors = list(validator.iter_errors(json.loads(body)))
        except Exception as error:  # a reference the validator cannot resolve counts against the document
            errors = [error]
        if errors:
            counts["invalid"] += 1
            invalid.append(f"GET {url}: {str(errors[0])[:160]}")
        else:
            counts["valid"] += 1
    if statuses:
        counts["other status"] = ", ".join(f"{count}× {status}" for status, count in sorted(statuses.items()))
    return counts, invalid


def per_test(rounds):
    def run(filter_):
        started = time.perf_counter()
        result = subprocess.run(["swift", "test", "--skip-build", "--filter", filter_], cwd=ROOT, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"swift test --filter {filter_} failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        return elapsed
    forty = statistics.median(run("ManyDocumentServersTests") for _ in range(rounds))
    one = statistics.median(run("ManyDocumentServersTests/servesAccounts00") for _ in range(rounds))
    print(f"per test: 40 tests with .mockServer(api:) of large.json {forty:.2f} s, one of them {one:.2f} s: {forty - one:+.2f} s (target: at most +2 s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("documents", nargs="*", help="[NAME=]FILE; default: the committed stand-ins")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--per-test", action="store_true")
    parser.add_argument("--gets", type=int, default=400, help="at most this many GET operations asked per document")
    args = parser.parse_args()
    if not args.no_build:
        build()
    documents = args.documents or [f"{n}={os.path.join(STANDINS, f)}" for n, f in
                                   [("large", "large.json"), ("split", "split/openapi.yaml"), ("imperfect", "imperfect.yaml"),
                                    ("journal", "journal.yaml"), ("swagger", "swagger.json")]]
    for entry in documents:
        name, path = entry.split("=", 1) if "=" in entry and not os.path.exists(entry) else (re.sub(r"[^a-z0-9]+", "-", os.path.splitext(os.path.basename(entry))[0].lower()), entry)
        is_json = path.lower().endswith(".json")
        tool = floor_tool(path, args.rounds)
        if is_json:
            floor, floor_name = float(tool["jsonserialization"]), "JSONSerialization"
        else:
            floor, floor_files = yaml_floor(path, args.rounds, tool["files"] != "1")
            floor_name = "CSafeLoader" + (f" over {floor_files} files" if floor_files > 1 else "")
        target = 3 if is_json else 2
        starts, log = [], ""
        for round_ in range(args.rounds):
            process, base, elapsed = start_server(name, path)
            starts.append(elapsed)
            if round_ < args.rounds - 1:
                log = stop(process)
        start = statistics.median(starts)
        counts, invalid = check_gets(base, name, args.gets)
        log = stop(process)
        print(f"== {name}: {path}")
        print(f"   {int(tool['bytes']) / 1e6:.2f} MB root file, {tool['files']} files read, {tool['operations']} operations, {tool['notes']} notes")
        print(f"   floor ({floor_name}) {floor:.3f} s" + (f", JSONValue {float(tool['jsonvalue']):.3f} s" if is_json else "")
              + f"; OpenAPIDocumentAPI.read {float(tool['read']):.3f} s; mock-server start {start:.3f} s"
              + (f" = {start / floor:.2f}× the floor (target ≤ {target}×) {'ok' if start <= target * floor else 'OVER'}"
                 if int(tool["bytes"]) >= 1_000_000 or tool["files"] != "1" else " (a small document: the process's own start is most of it)"))
        for line in log.splitlines():
            if re.search(r"(repaired|skipped|not served|undocumented answer):", line):
                print("   " + re.sub(r"^\S+ \S+ ", "", line)[:220])
        print(f"   GETs: {counts['asked']} asked, {counts['valid']} 2xx valid, {counts['invalid']} 2xx invalid; other statuses: {counts['other status'] or 'none'}")
        for line in invalid[:5]:
            print("     " + line)
    if args.per_test:
        per_test(max(1, min(args.rounds, 3)))


if __name__ == "__main__":
    main()
