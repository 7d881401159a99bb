#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer: the JSON parser (differential against Foundation),
# multipart, scenario files, the request path (bytes → clock → NIO decoder → handler →
# engine), the forward proxy's port (CONNECT and absolute-form requests, tunnels,
# pass-through off), a WebSocket's frames (frame decoder → RFC 6455 rules → script) and
# the event stream writer's inputs (scenario stubs → engine → writer, on a virtual clock).
# Each target runs for SECONDS (default 20), starting from Fuzz/corpus/NAME.
# A crash or a differential finding stops that target, keeps the input as
# Fuzz/findings/crash-*, and the script exits 1.
#   bash Fuzz/run.sh [SECONDS] [--report FILE]   # --report appends a Markdown table
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
report=""
if [ "${2:-}" = "--report" ]; then report=${3:?--report needs a file}; fi
targets=(json multipart scenario request proxy websocket sse)
scratch=.build-fuzz
# The fuzzers are a package of their own (Fuzz/Package.swift), depending on this one by path.
# A failed build stops the run: before, its errors were printed and the binaries of an
# earlier build fuzzed, which tested code no longer there.
build_log=$(mktemp)
for target in "${targets[@]}"; do
  if ! swift build --package-path Fuzz --scratch-path "$scratch" --product "fuzz-$target" -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING >"$build_log" 2>&1; then
    grep -E "error" "$build_log" | head -20
    echo "Fuzz/run.sh: fuzz-$target did not build. After a source file of the package was added or moved," \
      "SwiftPM may build from the old list of files: delete $scratch/debug.yaml and $scratch/build.db and run again." >&2
    exit 2
  fi
  grep -E "warning: |Build of" "$build_log" || true
done
rm -f "$build_log"
bin=$(swift build --package-path Fuzz --scratch-path "$scratch" --show-bin-path -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING)
mkdir -p Fuzz/findings
work=$(mktemp -d)
status=0
rows=()
for target in "${targets[@]}"; do
  # libFuzzer grows a working copy; the committed corpus stays the small seed set.
  mkdir -p "$work/$target"
  cp Fuzz/corpus/"$target"/* "$work/$target/"
  log="$work/$target.log"
  set +e
  SWIFT_BACKTRACE=enable=no "$bin/fuzz-$target" "$work/$target" -max_total_time="$seconds" -max_len=16384 \
    -artifact_prefix=Fuzz/findings/ -print_final_stats=1 >"$log" 2>&1
  code=$?
  set -e
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  corpus=$(ls "$work/$target" | wc -l)
  if [ $code -ne 0 ]; then
    status=1
    echo "fuzz-$target: FINDING (exit $code)"; grep -E "FUZZ FINDING|ERROR|Fatal error" "$log" | head -5
    rows+=("| fuzz-$target | ${runs:-?} | $corpus | **finding** (see Fuzz/findings) |")
  else
    echo "fuzz-$target: ${runs:-?} executions in ${seconds} s, corpus $corpus, no finding"
    rows+=("| fuzz-$target | ${runs:-?} | $corpus | none |")
  fi
done
if [ -n "$report" ]; then
  {
    echo "Fuzzing run of $(date -u +%Y-%m-%dT%H:%MZ), ${seconds} s per target, $(nproc) cores (\`bash Fuzz/run.sh $seconds --report ...\`):"
    echo
    echo "| target | executions | corpus after | findings |"
    echo "|---|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
    echo
  } >>"$report"
fi
rm -rf "$work"
exit $status
