#!/usr/bin/env bash
# Writes RELIABILITY.md from a fuzzing run, a soak run and a soak of each sanitizer's build
# (their figures, not typed ones).
#   bash Scripts/reliability.sh [FUZZ_SECONDS_PER_TARGET] [SOAK_SECONDS] [SANITIZER_SOAK_SECONDS]
#   (defaults 300, 300, and a fifth of SOAK_SECONDS)
# Builds mock-server in release for the soak, and in debug with -sanitize=thread
# (.build-tsan) and -sanitize=address (.build-asan) for the sanitizer soaks. Exits 1 if
# any run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz_seconds=${1:-300}
soak_seconds=${2:-300}
sanitizer_seconds=${3:-$((soak_seconds / 5))}
out=RELIABILITY.md
tmp=$(mktemp)
cat >"$tmp" <<'HEAD'
# Reliability

Written by `bash Scripts/reliability.sh FUZZ_SECONDS SOAK_SECONDS`; the tables below are
the scripts' own output from the run named in each. CI runs both in short form: the soak on
every change (`Scripts/soak.py --seconds 20` in `.ci/run`), the fuzz run every day
(`bash Fuzz/run.sh 20` in `.ci/scheduled`).

## Fuzzing (libFuzzer)

Targets (`Fuzz/Sources`): `fuzz-json` (our JSON parser against Foundation's
`JSONDecoder` and `JSONSerialization`: same accept/reject, same values), `fuzz-multipart`
(Open Market's multipart parsing), `fuzz-scenario` (scenario files: a refusal always names
a JSON path), `fuzz-request` (bytes → connection clock → NIO's decoder → request handler →
admin API and engine, every shipped scenario reachable), `fuzz-proxy` (the same on the
forward proxy's port, pass-through off: `CONNECT` and absolute-form targets, what a tunnel
carries after its head; every refusal a 400, 403 or 407 with a JSON reason that closes the
connection, no unmapped host ever tunnelled or answered, no channel outliving its
connection, and every parsed target the same after a round trip through its authority),
`fuzz-websocket` (a WebSocket's frames after its upgrade: NIO's frame decoder, RFC 6455's
rules and a script, every server frame whole and unmasked) and `fuzz-sse` (scenario
stubs with an `eventStream`, from fuzzed JSON or from fuzzed strings in every field, played
through the writer on an `EmbeddedChannel` whose clock the target advances, with the client
not reading for a while: whole chunks, no CR anywhere, every line a comment or a known
field, the last event dispatched by its empty line, nothing written while the channel is
not writable). Seeds are in `Fuzz/corpus`; an
ordinary `swift build` makes each target a corpus replayer, so every input that ever
crashed stays a check.

Found and fixed while building the fuzzers:
- **Server crash (fixed)**: a byte of 0x80 or more in a multipart part's header name made
  MultipartKit 4.7 index past a 128-entry table: one request killed the server. Now a 400
  naming the part (`MultipartHardeningTests`, and the input is in `Fuzz/corpus/multipart`).
- **Wrong answer (fixed)**, found by `fuzz-proxy`: an absolute-form target with its scheme
  in upper case (`GET HTTPS://MARKET-TRAINING.YAGOM-ACADEMY.KR/api/products`) went to the
  mapped API, which took the whole URL for the path and answered 404: the proxy compared
  the scheme in any case (RFC 3986), `MockRequest` only in lower case. Now both do
  (`ForwardProxyTests.anAbsoluteFormTargetInUpperCaseGetsItsPath`, and the input is in
  `Fuzz/corpus/proxy`).
- **Wrong answer (fixed)**, found by `fuzz-proxy`: a fragment before the query
  (`http://openmarket.yagom-academy.kr/ap#/products?page_no=1`) stayed in the path the
  engine answered for (`/ap#/products`), while the proxy read `/ap`: `MockRequest` cut a
  fragment off the query only. A fragment is now no part of the path or the query
  wherever it stands, on every port
  (`ForwardProxyTests.aFragmentInAnAbsoluteFormTargetIsNoPartOfItsPath`).
- Foundation's two JSON readers disagree with each other, and the differential says so
  rather than hiding it: duplicate keys (`JSONDecoder` keeps the first, as ours does;
  `JSONSerialization` the last), numbers that overflow a Double (`4e888`: only
  `JSONSerialization` accepts), `0e9` (only `JSONSerialization` reads it), and trailing
  commas (`[1,]`: both accept; RFC 8259, Python and JavaScript refuse, and so does ours).

HEAD
# The fuzz table goes into the file through --report.
fuzz_status=0
SWIFT_BACKTRACE=enable=no bash Fuzz/run.sh "$fuzz_seconds" --report "$tmp" || fuzz_status=$?
cat >>"$tmp" <<'MID'
## Soak

`Scripts/soak.py` against the release binary: normal clients (both APIs, happy path),
scenario clients (every shipped scenario, faults included), never-reading pipeliners,
slowloris heads, mid-body and mid-delay hang-ups, and forward proxy clients (TLS through
`CONNECT` tunnels and absolute-form requests to the APIs' real hosts; malformed and
unmapped targets, silent tunnels, garbage and truncated ClientHellos in tunnels, half a
`CONNECT` line), WebSocket clients (conversations to their close; unmasked, invalid UTF-8,
oversized and badly fragmented frames, never-reading and half-open sockets) and
Server-Sent Events clients (streams read to their end, tickers read and closed, resumes by
`Last-Event-ID`; never-reading, half-open, hang-ups, garbage and huge `Last-Event-ID`s),
all at once. "Entries lost" compares the requests the clients sent with
the journal's total.

MID
# A failed build stops here: the soak must not run an earlier build's binary.
if ! swift build -c release --product mock-server >"$tmp.build" 2>&1; then
  grep -E "error" "$tmp.build" | head -20
  echo "reliability.sh: mock-server did not build" >&2
  exit 2
fi
rm -f "$tmp.build"
soak_status=0
python3 Scripts/soak.py "$(swift build -c release --show-bin-path)/mock-server" --seconds "$soak_seconds" --report "$tmp" || soak_status=$?
cat >>"$tmp" <<'SANITIZERS'
## Sanitizers

The same soak against debug builds of mock-server made with `-sanitize=thread` (data
races, in `.build-tsan`) and `-sanitize=address` (out-of-bounds and use-after-free
accesses, in `.build-asan`), shorter. The soak keeps the server's stderr, where a
sanitizer writes its reports, and fails on a `WARNING: ThreadSanitizer` or an
`ERROR: AddressSanitizer` line, quoting the first ones; RSS is shown and not judged
(shadow memory and the quarantine are most of it). LeakSanitizer runs with
AddressSanitizer when the server exits on SIGTERM; a leak report fails the clean exit.

SANITIZERS
sanitizer_status=0
for sanitizer in thread address; do
  code=0
  bash Scripts/sanitizer-soak.sh "$sanitizer" "$sanitizer_seconds" --report "$tmp" || code=$?
  [ $code -eq 2 ] && exit 2   # the build failed
  [ $code -eq 0 ] || sanitizer_status=$code
done
mv "$tmp" "$out"
echo "wrote $out (fuzz exit $fuzz_status, soak exit $soak_status, sanitizer soaks exit $sanitizer_status)"
[ $fuzz_status -eq 0 ] && [ $soak_status -eq 0 ] && [ $sanitizer_status -eq 0 ]
