#!/usr/bin/env bash
# The soak (Scripts/soak.py, every client: HTTP, proxy, WebSockets, Server-Sent Events)
# against a debug build of mock-server made with a sanitizer: AddressSanitizer (and
# LeakSanitizer at exit) in .build-asan, ThreadSanitizer in .build-tsan, each a whole
# build of its own (about 15 minutes on 2 cores). The soak fails on a sanitizer's report
# in the server's stderr, and shows RSS without judging it (shadow memory).
#   bash Scripts/sanitizer-soak.sh address|thread [SECONDS] [--report FILE]   # SECONDS: 40
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:?usage: sanitizer-soak.sh address|thread [SECONDS] [--report FILE]}
seconds=${2:-40}
report=()
if [ "${3:-}" = "--report" ]; then report=(--report "${4:?--report needs a file}"); fi
case $sanitizer in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) echo "sanitizer-soak.sh: address or thread, not $sanitizer" >&2; exit 2 ;;
esac
# A failed build stops here: the soak must not run an earlier build's binary.
log=$(mktemp)
if ! swift build --product mock-server --sanitize="$sanitizer" --scratch-path "$scratch" >"$log" 2>&1; then
  grep -E "error" "$log" | head -20
  echo "sanitizer-soak.sh: mock-server did not build with -sanitize=$sanitizer" >&2
  exit 2
fi
rm -f "$log"
bin=$(swift build --product mock-server --sanitize="$sanitizer" --scratch-path "$scratch" --show-bin-path)
# Reports go to the server's stderr, which the soak keeps and searches; halt_on_error
# stays at its default for AddressSanitizer (the first error stops the server: a crash).
export TSAN_OPTIONS=${TSAN_OPTIONS:-"second_deadlock_stack=1"}
# LeakSanitizer cannot see references Swift tags with an enum's case (Data's storage):
# Scripts/lsan-suppressions.txt says which allocations that hides, and why.
export LSAN_OPTIONS=${LSAN_OPTIONS:-"suppressions=$PWD/Scripts/lsan-suppressions.txt:print_suppressions=1"}
exec python3 Scripts/soak.py "$bin/mock-server" --seconds "$seconds" --sanitized "$sanitizer" "${report[@]}"
