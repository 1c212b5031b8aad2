#!/usr/bin/env bash
# docs_check.sh BENCHDB SRCDIR: every command's synopsis (the first line of its --help)
# appears in the man page source, so the two cannot drift apart (git's t0450).
set -u
bin=$1 man=$2/docs/benchdb.1.md
pass=0 fail=0
for cmd in $("$bin" help | awk '/^Commands:/ {on=1; next} /^$/ {if (on) exit} on {print $1}'); do
  synopsis=$("$bin" "$cmd" --help | head -1 | sed 's/^usage: //')
  if grep -qF -- "\`$synopsis\`" "$man"; then
    pass=$((pass + 1))
  else
    echo "docs_check: '$synopsis' is missing from docs/benchdb.1.md"
    fail=$((fail + 1))
  fi
done
echo "docs_check: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 5 ]
