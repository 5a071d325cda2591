#!/usr/bin/env bash
# Runs every test: the whole suite on the release build, then the unit tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer, then every fuzz target for a short bounded time
# (NNDNA_FUZZ_SECONDS each, default 20). Installs what is missing and builds first.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"
"$root/scripts/install-deps.sh"

echo "== release build: every test"
"$root/scripts/build.sh" release
ctest --test-dir "$root/build" --output-on-failure -j"$jobs"

echo "== sanitizer build (ASan + UBSan): unit tests"
"$root/scripts/build.sh" asan
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir "$root/build-asan" --output-on-failure -j"$jobs" -L unit

echo "== fuzz build (clang, libFuzzer + ASan + UBSan): every fuzz target for ${NNDNA_FUZZ_SECONDS:-20} s"
"$root/scripts/build.sh" fuzz
ctest --test-dir "$root/build-fuzz" --output-on-failure -L fuzz
