#!/usr/bin/env bash
# exports_check.sh BUILDDIR SRCDIR: no dead or over-exported code. Every function or variable
# benchdb's objects export (its modules' static libraries and the cli objects) must be used by
# another of benchdb's objects: one used only in its own file should be static, one used by
# nobody is dead. Tests do not count as users, except for the pieces named with their reason in
# tests/tools/exports_for_tests.txt (an algorithm's inner step that a unit test checks against
# an independent reference), and each of those must really be used by a test. Read with nm from
# the objects, so it sees what the compiler kept. Generated objects (embedded files) are data.
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) || exit 2
cd "$build" || exit 2
allow=$src/tests/tools/exports_for_tests.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

product=$(find CMakeFiles/benchdb.dir -name '*.o'; ls libbdb_*.a)
tests=$(find "$build/tests/CMakeFiles" -name '*.o')
[ -n "$product" ] && [ -n "$tests" ] || { echo "exports_check: no objects under $build"; exit 2; }
ls embed 2>/dev/null | sed -n 's/\.c$/.c.o/p' >"$tmp/generated"

# "object symbol" per line; nm -A prefixes each line with archive:member or the object's path.
definitions() { # objects...
  # a sanitizer build adds symbols of its own (__odr_asan.NAME beside each global): not code
  nm -A --defined-only -g "$@" 2>/dev/null |
    awk 'NF >= 3 && $(NF-1) ~ /^[TDRB]$/ && $NF !~ /^__(odr_)?(asan|ubsan|sancov)/ {
      sub(/:[^:]*$/, "", $1); print $1, $NF}'
}
uses() { # objects...
  nm -A -u "$@" 2>/dev/null | awk 'NF >= 2 {sub(/:[^:]*$/, "", $1); print $1, $NF}'
}
# shellcheck disable=SC2086
definitions $product | grep -v -F -f "$tmp/generated" | sort -u >"$tmp/defined"
# shellcheck disable=SC2086
uses $product | sort -u >"$tmp/used"
# shellcheck disable=SC2086
uses $tests | awk '{print $2}' | sort -u >"$tmp/test_used"
grep -v '^#' "$allow" | awk 'NF {print $1}' | sort -u >"$tmp/allowed"

# A definition passes when another product object uses it, or when it is allowed for tests.
awk -v tmp="$tmp" '
  FILENAME == tmp "/used" {users[$2] = users[$2] " " $1; next}
  FILENAME == tmp "/allowed" {allowed[$1] = 1; next}
  FILENAME == tmp "/test_used" {tested[$1] = 1; next}
  $2 == "main" {next}
  {
    n = split(users[$2], u, " "); other = 0
    for (i = 1; i <= n; i++) if (u[i] != $1) other = 1
    if (other) {pass++; next}
    if (($2 in allowed) && ($2 in tested)) {pass++; seen[$2] = 1; next}
    printf "exports_check: '\''%s'\'' (%s) has no caller outside its file%s\n", $2, $1,
      ($2 in tested) ? " but tests: list it in exports_for_tests.txt with why, or make the test use the public API" \
                 : ": make it static or remove it"
    fail++
  }
  END {
    for (s in allowed) if (!seen[s]) {
      printf "exports_check: '\''%s'\'' is listed in exports_for_tests.txt but is not exported only for a test\n", s
      fail++
    }
    printf "%d %d\n", pass, fail > (tmp "/counts")
  }' "$tmp/used" "$tmp/allowed" "$tmp/test_used" "$tmp/defined"
read -r pass fail <"$tmp/counts"
echo "exports_check: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 100 ]
