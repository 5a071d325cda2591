#!/usr/bin/env bash
# Configures (once) and builds one build tree. Usage: scripts/build.sh [release|asan|fuzz] [targets...]
#   release -> build/       RelWithDebInfo, everything (tests and benchmarks included)
#   asan    -> build-asan/  Debug with AddressSanitizer + UndefinedBehaviorSanitizer, no benchmarks
#   fuzz    -> build-fuzz/  clang-16, libFuzzer + ASan + UBSan: the fuzz targets and their seeds
#                           (default target nndna_fuzz_targets; docs/fuzzing.md)
# Reuses an existing tree: a second run only rebuilds what changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
flavour="${1:-release}"
shift || true

case "$flavour" in
  release) dir="$root/build"; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  asan) dir="$root/build-asan"; flags=(-DCMAKE_BUILD_TYPE=Debug -DNNDNA_SANITIZE=ON -DNNDNA_BUILD_BENCH=OFF) ;;
  fuzz) dir="$root/build-fuzz"
        flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNDNA_FUZZ=ON -DNNDNA_BUILD_TESTS=OFF
               -DNNDNA_BUILD_BENCH=OFF -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16)
        [ $# -gt 0 ] || set -- nndna_fuzz_targets ;;
  *) echo "usage: $0 [release|asan|fuzz] [targets...]" >&2; exit 2 ;;
esac

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$dir" "${generator[@]}" "${flags[@]}"
fi
jobs="$(nproc 2>/dev/null || echo 2)"
if [ $# -gt 0 ]; then
  cmake --build "$dir" -j"$jobs" --target "$@"
else
  cmake --build "$dir" -j"$jobs"
fi
