#!/usr/bin/env bash
# Runs one fuzz target for SECONDS: builds build-fuzz/ (clang-16, libFuzzer + ASan + UBSan) with
# the target and its seeds, then fuzzes on its corpus (what earlier runs found, the generated and
# the committed seeds). A crash stops the run and leaves the input in build-fuzz/fuzz/TARGET/.
# Usage: scripts/fuzz.sh TARGET SECONDS      (targets: tests/fuzz/*_fuzz.cpp; docs/fuzzing.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ne 2 ]; then
  echo "usage: $0 TARGET SECONDS   (targets: $(cd "$root/tests/fuzz" && ls *_fuzz.cpp | sed 's/_fuzz.cpp//' | tr '\n' ' '))" >&2
  exit 2
fi
target="$1" seconds="$2"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" fuzz nndna_fuzz_targets
work="$root/build-fuzz/fuzz/$target"
program="$root/build-fuzz/tests/fuzz/${target}_fuzz"
[ -x "$program" ] || { echo "no fuzz target '$target'" >&2; exit 2; }
dict=""
for candidate in "$work/$target.dict" "$root/tests/fuzz/$target.dict"; do
  [ -f "$candidate" ] && { dict="$candidate"; break; }
done
exec "$root/tests/fuzz/run_fuzz_target.sh" "$program" "$seconds" "$dict" "$work/corpus" \
  "$work/seeds" "$root/tests/fuzz/corpus/$target"
