#!/usr/bin/env bash
# Runs a command and checks its exit status, its output and the files it wrote.
#   expect.sh STATUS [--says REGEX]... [--not-says REGEX]... [--file PATH REGEX]... [--no-file PATH]
#             -- COMMAND [ARGS...]
# STATUS is a number or "nonzero". --says: some line of stdout+stderr matches the extended REGEX;
# --not-says: no line does.
# --file: PATH exists and some line of it matches REGEX. Each failed check is printed; any fails it.
set -u
status="$1"
shift
says=()
unsaid=()
files=()
absent=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --says) says+=("$2"); shift 2 ;;
    --not-says) unsaid+=("$2"); shift 2 ;;
    --file) files+=("$2" "$3"); shift 3 ;;
    --no-file) absent+=("$2"); shift 2 ;;
    *) echo "expect.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "${1:-}" == "--" ]] || { echo "expect.sh: missing -- before the command" >&2; exit 2; }
shift

for ((i = 0; i < ${#files[@]}; i += 2)); do rm -f "${files[i]}"; done
for path in "${absent[@]}"; do rm -f "$path"; done
output="$("$@" 2>&1)"
actual=$?
printf '%s\n' "$output"
failed=0
if [[ "$status" == "nonzero" ]]; then
  [[ $actual -ne 0 ]] || { echo "FAIL: expected a non-zero exit status, got 0"; failed=1; }
elif [[ $actual -ne $status ]]; then
  echo "FAIL: expected exit status $status, got $actual"; failed=1
fi
for regex in "${says[@]}"; do
  grep -Eq -- "$regex" <<<"$output" || { echo "FAIL: no output line matches: $regex"; failed=1; }
done
for regex in "${unsaid[@]}"; do
  ! grep -Eq -- "$regex" <<<"$output" || { echo "FAIL: an output line matches: $regex"; failed=1; }
done
for ((i = 0; i < ${#files[@]}; i += 2)); do
  path="${files[i]}" regex="${files[i + 1]}"
  if [[ ! -f "$path" ]]; then
    echo "FAIL: $path was not written"; failed=1
  elif ! grep -Eq -- "$regex" "$path"; then
    echo "FAIL: no line of $path matches: $regex"; failed=1
  fi
done
for path in "${absent[@]}"; do
  [[ ! -e "$path" ]] || { echo "FAIL: $path should not exist"; failed=1; }
done
exit $failed
