#!/usr/bin/env bash
# layering.sh SRCDIR: the module boundaries hold. ingest/ and report/ never see SQLite; only
# schema/ and query/ hold SQL; only schema/ prepares statements (the others through its
# toolkit, schema/sql.h); core/ depends on nothing of ours; importers know no database.
set -u
cd "$1" || exit 2
fail=0
check() { # description, grep pattern, paths...
  local what=$1 pat=$2; shift 2
  local hits
  # usage texts may show a query as an example of what users type
  hits=$(grep -nE "$pat" "$@" 2>/dev/null | grep -vE 'benchdb query|usage:')
  if [ -n "$hits" ]; then
    echo "layering: $what:"
    echo "$hits"
    fail=1
  fi
}
check "ingest/ must not use SQLite" '#include <sqlite3.h>|sqlite3_' ingest/*.[ch]
check "report/ must not use SQLite" '#include <sqlite3.h>|sqlite3_' report/*.[ch]
check "core/ must not use SQLite" '#include <sqlite3.h>|sqlite3_' core/*.[ch]
check "core/ must not include other modules" '#include "\.\./' core/*.[ch]
check "ingest/ must not include schema/, query/, report/ or cli/" \
  '#include "\.\./(schema|query|report|cli)/' ingest/*.[ch]
check "report/ must not include schema/, query/, ingest/ or cli/" \
  '#include "\.\./(schema|query|ingest|cli)/' report/*.[ch]
check "SQL outside schema/ and query/" '"(SELECT|INSERT|UPDATE|DELETE) ' ingest/*.c report/*.c cli/*.c core/*.c
# Every C file but schema/'s (the toolkit's home), tests/ and bench/ (oracles and floors that
# talk to SQLite directly on purpose) and cmake/ (build tools: mkschema.c applies the migrations
# with SQLite alone, before schema/ is built).
mapfile -t toolkit_users < <(find . -mindepth 2 -maxdepth 2 -name '*.[ch]' ! -path './schema/*' \
  ! -path './tests/*' ! -path './bench/*' ! -path './cmake/*' | sort)
check "a raw sqlite3_prepare outside schema/ (use schema/sql.h)" 'sqlite3_prepare' \
  "${toolkit_users[@]}"
check "libpq outside fleet/" '#include <libpq-fe.h>|PQ[a-z]+\(' ingest/*.[ch] report/*.[ch] \
  core/*.[ch] cli/*.[ch] schema/*.[ch] query/*.[ch] import/*.[ch]
if [ $fail = 0 ]; then
  echo "layering: 1 passed, 0 failed"
else
  echo "layering: 0 passed, 1 failed"
fi
exit $fail
