#!/usr/bin/env bash
# swift-format's lint with the repository's configuration (`.swift-format`, and
# `Tests/.swift-format` for the tests, which have no public API to document). It fails on
# any rule finding: a public declaration without a doc comment, imports out of order, and
# the other rules the configuration turns on. Layout findings (indentation, line breaks,
# spacing, line length) are counted and printed, and fail only with --strict: the code
# base predates the configuration's layout, and reformatting it is one commit of its own.
#
# Rules the configuration turns off, and why: DoNotUseSemicolons, OneVariableDeclarationPerLine
# and OneCasePerLine (`flag = true; continue` in a parser's case, `var a = 0, b = 0`, and
# related enum cases on one line are the code base's idiom); FileScopedDeclarationPrivacy and
# NoAccessLevelOnExtensionDeclaration (`private` at file scope and `public extension` say
# what is meant); UseSynthesizedInitializer (an explicit init documents its parameters);
# GroupNumericLiterals, DontRepeatTypeInStaticProperties, NoLeadingUnderscores,
# AlwaysUseLowerCamelCase, IdentifiersMustBeASCII, OnlyOneTrailingClosureArgument,
# ReplaceForEachWithForLoop and NoAssignmentInExpressions (names and forms that mirror the
# protocols and tools they speak: HTTP header names, `_cdecl` symbols, NIO's callbacks).
# Tests and Fuzz have no public API to document and import `@testable` modules in
# alphabetical order: their configurations turn AllPublicDeclarationsHaveDocumentation and
# OrderedImports off.
#
#   bash Scripts/lint.sh [--strict]
set -euo pipefail
cd "$(dirname "$0")/.."

strict=no
[ "${1:-}" = "--strict" ] && strict=yes

# The built-in APIs are named only in their own modules (BuiltInMockAPIs, BuiltInContracts,
# BuiltInDrift): no other Swift file in Sources names a Restaurant or Open Market type, so a
# third built-in API is one file and one line in `BuiltInAPIs.all`. Tests and examples may
# name them; comments (doc examples) are not code. The command-line tools name the APIs
# only through the registry: no string literal of theirs spells `restaurant` or `openmarket`.
# A grep over Sources: well under a second.
builtin_leaks=$(grep -rnE '\b(Restaurant|OpenMarket)[A-Z][A-Za-z0-9]*' Sources --include='*.swift' \
  | grep -Ev '^Sources/(BuiltInMockAPIs|BuiltInContracts|BuiltInDrift)/' | grep -Ev '^[^:]+:[0-9]+:[[:space:]]*//' || true)
cli_names=$(grep -rniE '"([^"]*[^".[:alnum:]_])?(restaurant|openmarket)\b' Sources/mock-server Sources/mock-server-record Sources/MockServerCLI \
  --include='*.swift' | grep -Ev '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [ -n "$builtin_leaks$cli_names" ]; then
  [ -z "$builtin_leaks" ] || echo "$builtin_leaks"
  [ -z "$cli_names" ] || echo "$cli_names"
  echo "lint: a built-in API is named outside its modules (above): go through \`BuiltInAPIs.all\` or move the code to BuiltInMockAPIs, BuiltInContracts or BuiltInDrift"
  exit 1
fi

layout='\[(Indentation|AddLines|RemoveLine|LineLength|Spacing|TrailingComma|TrailingWhitespace)\]'
out=$(mktemp)
trap 'rm -f "$out"' EXIT
swift format lint --recursive --parallel Sources Tests Fuzz/Sources Benchmarks/NIOFloor Benchmarks/ContractTiming \
  Benchmarks/DocumentFloor >"$out" 2>&1 || true

rules=$(grep -E 'warning: \[' "$out" | grep -Ev "$layout" || true)
layout_count=$(grep -cE "$layout" "$out" || true)
if [ -n "$rules" ]; then
  echo "$rules"
  echo "lint: $(echo "$rules" | wc -l) rule findings (above)"
  exit 1
fi
if grep -qE 'error:' "$out"; then
  grep -E 'error:' "$out"
  exit 1
fi
echo "lint: no rule findings; $layout_count layout findings$([ "$strict" = yes ] || echo ' (not failing without --strict)')"
[ "$strict" = no ] || [ "$layout_count" -eq 0 ]
