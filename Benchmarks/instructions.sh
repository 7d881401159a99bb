#!/usr/bin/env bash
# User-space instructions per request, counted by valgrind's callgrind: the mock and
# nio-floor on the same routes, after the same warm-up. Instruction counts do not move
# with the machine's load, so an A/B of two builds is exact where the req/s of two 3 s
# rounds on a shared 2-core VM are not (see Benchmarks/README.md, "Instructions per
# request"). They leave out the kernel (a third to a half of each server's CPU here).
#
#   Benchmarks/instructions.sh [--cache] [--h2 | --https | --upload | --ws] [MOCK_BINARY [FLOOR_BINARY]]
#
# Defaults: .build/release/mock-server and Benchmarks/.build/release/nio-floor (`Benchmarks/run.sh`
# builds both). --h2 measures /menu over TLS and HTTP/2 (h2load -m 10) instead, --https
# /menu over TLS and HTTP/1.1 (keep-alive, as the benchmark's HTTPS row).
# --upload measures the mock alone (the floor reads no bodies): three POSTs of 4 MB each
# (curl, Content-Length), the body read, journaled as a digest and answered with a 400.
# --ws measures a WebSocket echo round trip instead (Benchmarks/ws_echo.py: 16 sockets, a
# 32-byte text message sent and its echo read, one at a time): the mock playing
# Benchmarks/scenarios/bench-echo.json against ws-floor (FLOOR_BINARY's default becomes
# Benchmarks/.build/release/ws-floor), SwiftNIO's WebSocket server example made to echo
# (WS_FLOOR_LEAN=1 in the environment: the lean floor, which also writes each frame as one
# buffer, as the mock does; Benchmarks/README.md, "Streams").
# --cache adds callgrind's cache simulation (the machine's L1 instruction and data caches
# and last level): misses per request beside the instructions, which is where a server
# spends time its instruction count does not show. The warm-up is then 12,000 requests,
# so that the mock's journal is at its cap of 10,000 (as in every benchmark row after
# its first fraction of a second) and each request evicts the oldest entry.
set -euo pipefail
cd "$(dirname "$0")/.."

h2=false
https=false
upload=false
ws=false
cache=false
while [ $# -gt 0 ]; do
  case $1 in
    --h2) h2=true ;;
    --https) https=true ;;
    --upload) upload=true ;;
    --ws) ws=true ;;
    --cache) cache=true ;;
    --*) echo "instructions.sh: unknown option $1 (--cache, --h2, --https, --upload, --ws)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
mock=${1:-.build/release/mock-server}
if $ws; then floor=${2:-Benchmarks/.build/release/ws-floor}; else floor=${2:-Benchmarks/.build/release/nio-floor}; fi
for binary in "$mock" "$floor"; do
  [ -x "$binary" ] || { echo "instructions.sh: $binary not found (build it with Benchmarks/run.sh or swift build -c release)" >&2; exit 2; }
done
need=()
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v h2load >/dev/null 2>&1 || need+=(nghttp2-client)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v bc >/dev/null 2>&1 || need+=(bc)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 the Swift toolchain writes: count on copies
# without debug information (the symbol table stays, so profiles keep their names).
cp "$mock" "$work/mock-server" && strip -g "$work/mock-server"
cp "$floor" "$work/nio-floor" && strip -g "$work/nio-floor"

scheme=http
tls=false
if $h2 || $https; then scheme=https; tls=true; fi

# start NAME PATH COMMAND...: runs COMMAND's server under callgrind and sets `pid` and
# `port` once it answers PATH.
simulate=()
if $cache; then simulate=(--cache-sim=yes); fi
start() {
  local name=$1 path=$2; shift 2
  valgrind --tool=callgrind "${simulate[@]}" --callgrind-out-file="$work/$name.%p" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pid=$! port=""
  for _ in $(seq 1 200); do
    port=$(grep -o 'Listening on https\?://127.0.0.1:[0-9]*' "$work/$name.out" 2>/dev/null | head -1 | sed 's/.*://' || true)
    [ -n "$port" ] && curl -skf -o /dev/null "$scheme://127.0.0.1:$port$path" && break
    sleep 0.2
  done
  [ -n "$port" ] || { echo "instructions.sh: $name did not start:" >&2; cat "$work/$name.err" >&2; exit 1; }
}

# total NAME: stops the server `start` ran and sets `instructions` to those counted since
# the last `callgrind_control -z`; with --cache, `misses` to the L1 instruction, L1 data
# (reads and writes) and last-level misses, separated by spaces.
total() {
  callgrind_control -d "$pid" >/dev/null 2>&1
  sleep 0.5
  kill "$pid"; wait "$pid" 2>/dev/null || true
  local profile
  profile=$(ls -S "$work/$1".*.1 | head -1)
  instructions=$(awk '/^(summary|totals):/ {print $2; exit}' "$profile")
  $cache || return 0
  # The summary's columns follow the `events:` line: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
  misses=$(awk '/^events:/ { for (i = 2; i <= NF; i++) column[$i] = i }
    /^(summary|totals):/ { print $column["I1mr"], $column["D1mr"] + $column["D1mw"],
                                 $column["ILmr"] + $column["DLmr"] + $column["DLmw"]; exit }' "$profile")
}

if $upload; then
  head -c 4000000 /dev/urandom >"$work/upload.bin"
  start upload /menu "$work/mock-server" --port 0 --log-level warning
  callgrind_control -z "$pid" >/dev/null 2>&1
  for _ in 1 2 3; do
    status=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$work/upload.bin" "http://127.0.0.1:$port/order")
    [ "$status" = 400 ] || { echo "instructions.sh: a 4 MB POST was answered $status, not 400" >&2; exit 1; }
  done
  total upload
  echo "mock Ir per 4 MB POST: $((instructions / 3))"
  exit 0
fi

if $ws; then
  # ws_echo.py zeroes the counters itself, between its warm-up and its counted round trips
  # (WS_WARMUP and WS_COUNTED, for a quick check of the script itself).
  ws_warmup=${WS_WARMUP:-2000}
  ws_counted=${WS_COUNTED:-10000}
  printf '%-6s %14s %14s %8s\n' route "mock Ir/echo" "floor Ir/echo" ratio
  ws_count() {
    local name=$1 ready=$2; shift 2
    start "$name" "$ready" "$@"
    local answered
    answered=$(python3 Benchmarks/ws_echo.py "$port" /echo 16 "$ws_warmup" "$ws_counted" "$pid")
    total "$name"
    [ "$answered" = "$ws_counted" ] || { echo "instructions.sh: $name echoed $answered of $ws_counted" >&2; exit 1; }
    echo $((instructions / ws_counted))
  }
  mock=$(ws_count mock-echo /__admin/health "$work/mock-server" --port 0 --log-level info --scenario Benchmarks/scenarios/bench-echo.json)
  floor=$(ws_count floor-echo / "$work/nio-floor")
  printf '%-6s %14s %14s %7.2fx\n' echo "$mock" "$floor" "$(echo "$mock / $floor" | bc -l)"
  exit 0
fi

warmup=3000
if $cache; then warmup=12000; fi
counted=10000
load=(h2load --h1 -c 16)
if $h2; then load=(h2load -c 16 -m 10); fi

# The mock's bytes, served by nio-floor as nginx serves them in the benchmark.
mkdir -p "$work/www/images"

# count NAME PATH COMMAND...: prints the instructions per request of COMMAND's server.
count() {
  local name=$1 path=$2; shift 2
  start "$name" "$path" "$@"
  "${load[@]}" -n "$warmup" "$scheme://127.0.0.1:$port$path" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  local answered
  answered=$("${load[@]}" -n "$counted" "$scheme://127.0.0.1:$port$path" | awk '/^requests:/ {print $8}')
  total "$name"
  [ "$answered" = "$counted" ] || { echo "instructions.sh: $name answered $answered of $counted" >&2; exit 1; }
  if $cache; then
    local i1 d1 ll
    read -r i1 d1 ll <<<"$misses"
    echo "$((instructions / counted)) $((i1 / counted)) $((d1 / counted)) $(echo "$ll / $counted" | bc -l | xargs printf '%.1f')"
  else
    echo $((instructions / counted))
  fi
}

if $tls; then
  routes=("menu|/menu|menu.json|application/json; charset=utf-8")
else
  routes=("menu|/menu|menu.json|application/json; charset=utf-8"
          "page|/api/products?page_no=1&items_per_page=20|page.json|application/json; charset=utf-8"
          "image|/images/1.png|images/1.png|image/png")
fi

# The mock's own answers become nio-floor's files (absolute URLs name the mock's address,
# which only changes bytes, not sizes, by the port's digits).
valgrind_free_mock() {
  "$work/mock-server" --port 0 --log-level warning "$@" >"$work/plain.out" 2>&1 &
  local pid=$! port=""
  for _ in $(seq 1 100); do
    port=$(grep -o 'Listening on https\?://127.0.0.1:[0-9]*' "$work/plain.out" 2>/dev/null | head -1 | sed 's/.*://' || true)
    [ -n "$port" ] && break
    sleep 0.1
  done
  for route in "${routes[@]}"; do
    IFS='|' read -r _ path file _ <<<"$route"
    curl -skf -o "$work/www/$file" "$scheme://127.0.0.1:$port$path"
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
tls_args=()
floor_tls=()
if $tls; then
  # One self-signed certificate for both (the clients do not verify it).
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
  tls_args=(--tls --tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
  floor_tls=(--tls "$work/cert.pem" "$work/key.pem")
fi
valgrind_free_mock "${tls_args[@]}"

if $cache; then
  printf '%-6s %-6s %12s %14s %14s %14s\n' route server "Ir/req" "I1 misses/req" "D1 misses/req" "LL misses/req"
else
  printf '%-6s %14s %14s %8s\n' route "mock Ir/req" "floor Ir/req" ratio
fi
for route in "${routes[@]}"; do
  IFS='|' read -r label path file type <<<"$route"
  mock=$(count "mock-$label" "$path" "$work/mock-server" --port 0 --log-level info "${tls_args[@]}")
  floor=$(count "floor-$label" "$path" "$work/nio-floor" "${floor_tls[@]}" "$work/www" "$path|$file|$type")
  if $cache; then
    read -r ir i1 d1 ll <<<"$mock"
    printf '%-6s %-6s %12s %14s %14s %14s\n' "$label" mock "$ir" "$i1" "$d1" "$ll"
    read -r ir i1 d1 ll <<<"$floor"
    printf '%-6s %-6s %12s %14s %14s %14s\n' "$label" floor "$ir" "$i1" "$d1" "$ll"
  else
    printf '%-6s %14s %14s %7.2fx\n' "$label" "$mock" "$floor" "$(echo "$mock / $floor" | bc -l)"
  fi
done
