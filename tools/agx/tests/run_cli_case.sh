#!/usr/bin/env bash
# Runs one CLI golden case: run_cli_case.sh AGX CASE_DIR
# CASE_DIR holds:
#   args         the arguments, one per line (no shell quoting needed)
#   stdin        optional: fed to standard input
#   expected     optional: standard output must equal this file exactly
#   contains     optional: each line must occur somewhere in stdout+stderr
#   rc           optional: the expected exit code (default 0)
# Files named in args as @CASE@/name are resolved inside CASE_DIR.
set -u
agx=$1
dir=$2
mapfile -t args < <(sed "s|@CASE@|$dir|g" "$dir/args")
want_rc=0
[ -f "$dir/rc" ] && want_rc=$(cat "$dir/rc")
out=$(mktemp); err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
if [ -f "$dir/stdin" ]; then
  "$agx" "${args[@]}" <"$dir/stdin" >"$out" 2>"$err"; rc=$?
else
  "$agx" "${args[@]}" </dev/null >"$out" 2>"$err"; rc=$?
fi
status=0
if [ "$rc" != "$want_rc" ]; then
  echo "exit code $rc, expected $want_rc"; status=1
fi
if [ -f "$dir/expected" ] && ! diff -u "$dir/expected" "$out"; then
  echo "stdout differs from $dir/expected"; status=1
fi
if [ -f "$dir/contains" ]; then
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    if ! grep -qF -- "$line" "$out" "$err"; then echo "missing: $line"; status=1; fi
  done <"$dir/contains"
fi
if [ $status != 0 ]; then echo "--- stderr:"; cat "$err"; echo "--- stdout:"; head -50 "$out"; fi
exit $status
