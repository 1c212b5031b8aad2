#!/usr/bin/env bash
# run_golden.sh CASE_DIR: runs CASE_DIR/cmd (a shell snippet using $BENCHDB, $DB and $IN, the
# case folder) from inside the case folder and compares stdout, stderr and the exit status with
# expected.out, expected.err and expected.status (0 when absent). Inputs are referred to by
# relative path so that messages are stable. BENCHDB_UPDATE_GOLDEN=1 rewrites the expectations.
set -u
case_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export DB=$tmp/golden.sqlite IN=$case_dir
cd "$case_dir" || exit 2
bash ./cmd >"$tmp/out" 2>"$tmp/err"
status=$?
want_status=0
[ -f expected.status ] && want_status=$(cat expected.status)
if [ "${BENCHDB_UPDATE_GOLDEN:-}" = 1 ]; then
  cp "$tmp/out" expected.out
  cp "$tmp/err" expected.err
  [ "$status" = 0 ] && rm -f expected.status || echo "$status" >expected.status
  exit 0
fi
fail=0
diff -u expected.out "$tmp/out" || fail=1
diff -u expected.err "$tmp/err" || fail=1
if [ "$status" != "$want_status" ]; then
  echo "exit status $status, expected $want_status"
  fail=1
fi
exit $fail
