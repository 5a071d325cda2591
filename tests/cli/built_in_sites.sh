#!/usr/bin/env bash
# built_in_sites.sh NNDNA EXAMPLES_DIR CACHE_DIR: a built-in spec traced inside `nndna`, which has
# libnndna linked in (so libnndna's frames share the program's module with the spec's), names the
# same call sites as the same spec compiled and run as a spec program against libnndna.so
# (src/trace/callsite.cpp tells libnndna's frames apart both ways). The IR is compared whole, the
# sites' addresses left out (module-relative, in two programs).
set -u
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
for spec in gpt2_small unet; do
  "$1" trace --example "$spec" --json "$work/inside.json" >/dev/null || { echo "FAIL: trace --example $spec"; exit 1; }
  "$1" trace "$2/$spec.cpp" --cache-dir "$3" --json "$work/program.json" >/dev/null ||
    { echo "FAIL: trace $2/$spec.cpp"; exit 1; }
  for side in inside program; do
    sed -E 's/"address": [0-9]+/"address": 0/' "$work/$side.json" >"$work/$side.sites"
  done
  grep -q '"function": "[A-Za-z_]' "$work/inside.sites" || { echo "FAIL: no call site of $spec names a function"; exit 1; }
  if ! cmp -s "$work/inside.sites" "$work/program.sites"; then
    echo "FAIL: $spec's IR differs traced inside nndna and as a spec program:"
    diff "$work/inside.sites" "$work/program.sites" | head -20
    exit 1
  fi
  echo "$spec: the same IR and call sites both ways ($(grep -c '"function"' "$work/inside.sites") frames)"
done
