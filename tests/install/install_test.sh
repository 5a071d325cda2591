#!/bin/bash
# Installs nndna into a temporary prefix, then builds and runs a small project of its own against
# it twice: with CMake (find_package(nndna): nndna::xray, nndna::nndna, nndna::diagram) and with
# pkg-config (nndna-xray, nndna). Nothing of the build or source tree may be used but the install.
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
cp -r "$source_dir/tests/install/consumer" "$work/consumer"

expect() {  # expect FILE LINE: the program printed LINE
  grep -qxF "$2" "$1" || { echo "missing line '$2' in:"; cat "$1"; exit 1; }
}
check_output() {
  expect "$1" "square: 49"
  expect "$1" "spans: 4"
  expect "$1" "json nodes: 4"
  expect "$1" "html: svg"
  expect "$1" "spec: main"
}

echo "== with CMake"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
run_logged() {  # the command's output only when it fails
  "$@" > "$work/log.txt" 2>&1 || { cat "$work/log.txt"; exit 1; }
}
run_logged cmake -S "$work/consumer" -B "$work/cmake-build" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release
run_logged cmake --build "$work/cmake-build"
"$work/cmake-build/consumer" > "$work/cmake.txt"
cat "$work/cmake.txt"
check_output "$work/cmake.txt"
expect "$work/cmake.txt" "diagram: svg"
# The grad of a in tanh(a*b) at a=2, b=-3: b * (1 - tanh(-6)^2) = -3 * 2.45765e-05 (cout: 6 digits).
expect "$work/cmake.txt" "grad a: -7.37296e-05"

# libnndna_xray.so finds libnndna_render.so beside it by itself (a program linking xray alone
# has no run path for it).
readelf -d "$prefix/lib/libnndna_xray.so" | grep -q 'RUNPATH.*\[\$ORIGIN\]' ||
  { echo "the installed libnndna_xray.so has no RUNPATH \$ORIGIN:"; readelf -d "$prefix/lib/libnndna_xray.so"; exit 1; }

echo "== with pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
# No run path of our own: the .pc files carry it, so the documented command makes a program that
# starts (PREFIX/lib is not on the loader's path).
run_logged c++ -o "$work/pkg-consumer" "$work/consumer/main.cpp" $(pkg-config --cflags --libs nndna-xray nndna)
"$work/pkg-consumer" > "$work/pkg.txt"
cat "$work/pkg.txt"
check_output "$work/pkg.txt"
if grep -q "diagram:" "$work/pkg.txt"; then echo "pkg-config build drew a diagram?"; exit 1; fi
echo "== the installed commands"
# `nndna` finds libnndna in ../lib and hands `design` and `serve` to ../libexec/nndna/nndna-net.
"$prefix/bin/nndna" --version > "$work/version.txt"
expect "$work/version.txt" "nndna $(sed -n 's/^project(nndna VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")"
"$prefix/bin/nndna" serve --help > "$work/serve-help.txt"
grep -q -- "--max-connections" "$work/serve-help.txt" || { echo "nndna serve --help:"; cat "$work/serve-help.txt"; exit 1; }
# serve's layout worker, beside nndna-net, finds libnndna too: it loads Graphviz, says it is ready,
# reads the end of its input and exits 0.
"$prefix/libexec/nndna/nndna-layout" < /dev/null > /dev/null || { echo "the installed nndna-layout does not start"; exit 1; }
echo "install test passed"
