#!/usr/bin/env bash
# Golden plans: plans/MANIFEST lists "FILE  COMPILE-ARGS..." per line.
#   tools/golden.sh check COLLPLAN [PLANS_DIR]   recompile each, compare byte
#                                                for byte, verify the file
#   tools/golden.sh update COLLPLAN [PLANS_DIR]  rewrite the files (review the
#                                                diff before committing)
set -u
mode=$1
COLLPLAN=$2
PLANS=${3:-"$(dirname "$0")/../plans"}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0
while read -r file args; do
  case "$file" in '' | '#'*) continue ;; esac
  # shellcheck disable=SC2086
  if ! "$COLLPLAN" compile $args --quiet -o "$WORK/$file" 2>"$WORK/err"; then
    echo "FAIL: $file: compile $args failed:"
    sed 's/^/  | /' "$WORK/err"
    failed=$((failed + 1))
    continue
  fi
  if [ "$mode" = update ]; then
    cp "$WORK/$file" "$PLANS/$file"
    echo "updated $file"
  elif ! cmp -s "$WORK/$file" "$PLANS/$file"; then
    echo "FAIL: $file differs from what 'collplan compile $args' produces now"
    diff "$PLANS/$file" "$WORK/$file" 2>&1 | head -10 | sed 's/^/  | /'
    failed=$((failed + 1))
    continue
  fi
  if ! "$COLLPLAN" verify "$PLANS/$file" >"$WORK/out" 2>&1; then
    echo "FAIL: $file does not verify:"
    sed 's/^/  | /' "$WORK/out" | head -10
    failed=$((failed + 1))
    continue
  fi
  passed=$((passed + 1))
done <"$PLANS/MANIFEST"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
