#!/usr/bin/env bash
# The benchmark against nginx (see README, "Performance"). Builds in release mode,
# installs wrk and nginx from Debian's packages if missing, then runs bench.py.
# Arguments go to bench.py: --readme writes the results into README.md, --quick is a
# short run that only proves everything works, --only growth runs only the growth rows.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v taskset >/dev/null 2>&1 || need+=(util-linux)
# The TLS rows: HTTP/2 load from nghttp2's h2load; openssl signs the shared certificate.
command -v h2load >/dev/null 2>&1 || need+=(nghttp2-client)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# contract-timing uses URLSession; linked statically, FoundationNetworking needs libcurl's headers.
[ -e /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -e /usr/include/curl/curl.h ] || need+=(libcurl4-openssl-dev)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi

# Statically linked Swift runtime and Foundation, as a server is deployed: fewer
# libraries to load and relocate at start (measured: 15 ms and 6 MB less).
swift build -c release --static-swift-stdlib --product mock-server
swift build -c release --static-swift-stdlib --package-path Benchmarks --product contract-timing
swift build -c release --static-swift-stdlib --package-path Benchmarks --product nio-floor
# The WebSocket echo's floor, for instructions.sh --ws.
swift build -c release --static-swift-stdlib --package-path Benchmarks --product ws-floor
# The binary users get from `swift build -c release` (the Swift runtime and Foundation
# linked dynamically), measured beside the static one (#24). A folder of its own: built
# in .build, switching between the two rebuilt every module (7.5 minutes here). Not for
# --quick (CI): a second whole build; bench.py measures it there only if it exists.
case " $* " in
  *" --quick "*) ;;
  *) swift build -c release --product mock-server --scratch-path .build-dynamic ;;
esac
# The growth rows hold 10,000 connections in wrk and in each server.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec python3 Benchmarks/bench.py "$@"
