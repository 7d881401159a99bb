#!/usr/bin/env bash
# What a user's test target pays to build MockServer: Examples/OrderApp's tests (the trait and
# the contract suites over .sockets and .inProcess, no HTTPS), built from clean twice in one
# run, on this checkout and on BASE, each in a fresh scratch folder. Prints, for each, the
# object files compiled (every *.o under the scratch folder: a count of compiled files, so it
# cannot be lowered by merging sources), the modules compiled with their object counts, the
# TLS-stack modules among them, and the wall time of the build; then this checkout's figures
# as a fraction of BASE's.
#
#   Benchmarks/build-weight.sh [BASE]
#
# BASE is any revision (a commit, HEAD~3, main); by default the merge-base of HEAD and main.
# It is checked out as a detached git worktree in a temporary folder. Dependencies are
# resolved before the clock starts (offline, SwiftPM clones them from its cache), and BASE
# builds the versions this checkout resolved, so the two builds differ only in the package's
# own code. Both scratch folders and the worktree are deleted on exit.
#
# The times depend on the machine's load: run it on an otherwise idle machine, and read the
# object counts, which do not, beside them.
set -euo pipefail

ROOT=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
BASE=${1:-$(git -C "$ROOT" merge-base HEAD main)}
BASE_SHA=$(git -C "$ROOT" rev-parse --verify --quiet "$BASE^{commit}") || { echo "error: $BASE is not a commit" >&2; exit 2; }
HEAD_SHA=$(git -C "$ROOT" rev-parse HEAD)
HEAVY="CNIOBoringSSL CCryptoBoringSSL X509 Crypto _CryptoExtras CryptoExtras NIOSSL NIOHTTP2 NIOHPACK SwiftASN1 NIOTLS"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-weight.XXXXXX")
cleanup() {
    git -C "$ROOT" worktree remove --force "$WORK/base" >/dev/null 2>&1 || true
    git -C "$ROOT" worktree prune >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT

git -C "$ROOT" worktree add --detach --quiet "$WORK/base" "$BASE_SHA"

# Seconds since the epoch, to the millisecond (date has no %N on macOS).
now() { perl -MTime::HiRes=time -e 'printf "%.3f\n", time'; }

# The 1-minute load average, which says how far the machine's other work stretched a time.
loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || uptime | sed 's/.*averages*: *//; s/,.*//'; }

# measure LABEL CHECKOUT: resolves, then builds OrderApp's tests into $WORK/LABEL-build and
# leaves LABEL's figures in $WORK/LABEL.{seconds,objects,modules}.
measure() {
    local label=$1 checkout=$2 scratch="$WORK/$1-build"
    local app="$checkout/Examples/OrderApp"
    echo "== $label: resolving $app" >&2
    swift package resolve --package-path "$app" --scratch-path "$scratch" >"$WORK/$label.resolve.log" 2>&1 \
        || { cat "$WORK/$label.resolve.log" >&2; exit 1; }
    echo "== $label: swift build --build-tests (from clean)" >&2
    local start end
    loadavg >"$WORK/$label.load"
    start=$(now)
    if ! swift build --build-tests --package-path "$app" --scratch-path "$scratch" >"$WORK/$label.build.log" 2>&1; then
        tail -40 "$WORK/$label.build.log" >&2
        echo "error: the $label build failed" >&2
        exit 1
    fi
    end=$(now)
    echo "$end - $start" | bc >"$WORK/$label.seconds"
    echo " -> $(loadavg)" >>"$WORK/$label.load"
    find "$scratch" -name '*.o' | wc -l | tr -d ' ' >"$WORK/$label.objects"
    # A module's objects are in its TARGET.build folder.
    find "$scratch" -name '*.o' -path '*.build/*' \
        | sed -E 's|.*/([^/]+)\.build/.*|\1|' | sort | uniq -c | sort -rn >"$WORK/$label.modules"
}

measure this "$ROOT"
# The same dependency versions for BASE.
cp "$ROOT/Examples/OrderApp/Package.resolved" "$WORK/base/Examples/OrderApp/Package.resolved" 2>/dev/null || true
measure base "$WORK/base"

report() {
    local label=$1 revision=$2
    local modules
    modules=$(wc -l <"$WORK/$label.modules" | tr -d ' ')
    printf '\n%s (%s)\n' "$label" "$revision"
    printf '  wall time:      %.1f s (load average %s)\n' "$(cat "$WORK/$label.seconds")" "$(tr -d '\n' <"$WORK/$label.load")"
    printf '  object files:   %s\n' "$(cat "$WORK/$label.objects")"
    printf '  modules:        %s\n' "$modules"
    awk '{ printf "    %6d  %s\n", $1, $2 }' "$WORK/$label.modules"
    local found=()
    for module in $HEAVY; do
        grep -qE "^ *[0-9]+ $module\$" "$WORK/$label.modules" && found+=("$module")
    done
    if [ ${#found[@]} -eq 0 ]; then
        echo "  TLS stack:      none of $HEAVY"
    else
        echo "  TLS stack:      ${found[*]}"
    fi
}

report this "${HEAD_SHA:0:12}$(git -C "$ROOT" diff --quiet HEAD -- . 2>/dev/null || echo ' + uncommitted changes')"
report base "${BASE_SHA:0:12} $BASE"

this_s=$(cat "$WORK/this.seconds"); base_s=$(cat "$WORK/base.seconds")
this_o=$(cat "$WORK/this.objects"); base_o=$(cat "$WORK/base.objects")
printf '\nthis / base: %.2fx the time (%.1f s / %.1f s), %.2fx the object files (%s / %s)\n' \
    "$(echo "$this_s / $base_s" | bc -l)" "$this_s" "$base_s" "$(echo "$this_o / $base_o" | bc -l)" "$this_o" "$base_o"
