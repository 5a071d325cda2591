#!/bin/bash
# Installs nndna into a temporary prefix and compiles + runs the default model with the installed
# `nndna ir`: the runner must find the installed headers, libnndna and spec main, not the build tree.
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The sandbox's init is installed beside nndna-net, static: its exec loads no library.
init="$work/prefix/libexec/nndna/nndna-sandbox-init"
[[ -x "$init" ]] || { echo "missing: $init"; exit 1; }
if readelf -l "$init" | grep -q INTERP; then echo "$init is not static"; exit 1; fi
cp "$source_dir/examples/diffusion_denoiser.cpp" "$work/model.cpp"
cd "$work"
NNDNA_CACHE_DIR="$work/cache" "$work/prefix/bin/nndna" ir model.cpp -o model.json -v 2> log.txt || {
  cat log.txt; exit 1; }
cat log.txt
grep -q '^toolchain: installed$' log.txt
grep -q '"format": "nndna-ir"' model.json
# A compile error names the file as typed, from the installed runner too.
printf '#include <nndna/nndna.hpp>\nint x = nope;\n' > broken.cpp
if NNDNA_CACHE_DIR="$work/cache" "$work/prefix/bin/nndna" ir broken.cpp -o out.json 2> err.txt; then
  echo "broken.cpp compiled"; exit 1
fi
cat err.txt
grep -q "^broken.cpp:2:9: error: 'nope' was not declared in this scope" err.txt
# Without its init, the installed nndna runs nothing (no spec unsandboxed): it says what is
# missing and where it looked.
mv "$init" "$init.away"
if NNDNA_CACHE_DIR="$work/cache" "$work/prefix/bin/nndna" ir model.cpp -o again.json 2> missing.txt; then
  echo "the spec ran without the sandbox's init"; exit 1
fi
cat missing.txt
prefix=$(realpath "$work/prefix")
grep -qF "nndna: nndna-sandbox-init, the sandbox's init program, is missing: looked for $prefix/bin/nndna-sandbox-init, $prefix/libexec/nndna/nndna-sandbox-init" missing.txt
[[ ! -e again.json ]] || { echo "again.json was written"; exit 1; }
mv "$init.away" "$init"
echo "install test passed"
