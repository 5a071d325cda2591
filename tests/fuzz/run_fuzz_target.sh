#!/usr/bin/env bash
# Runs one libFuzzer program for SECONDS on its corpora; fails on the first crash, leak, timeout
# or uncaught exception, leaving the input that caused it next to the corpus (crash-*, leak-*...).
# Usage: run_fuzz_target.sh PROGRAM SECONDS DICT|"" WORK_CORPUS [SEED_DIRS...]
# (NNDNA_FUZZ_SECONDS in the environment overrides SECONDS: scripts/test.sh passes it on.)
# WORK_CORPUS is created and collects what the run finds; the seed folders are only read.
set -euo pipefail
program="$1" seconds="${NNDNA_FUZZ_SECONDS:-$2}" dict="$3" work="$4"
shift 4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$work"
seeds=()
for dir in "$@"; do [ -d "$dir" ] && seeds+=("$dir"); done
options=(
  -max_total_time="$seconds"
  -timeout=30            # one input: a slow layout is a finding, not a hang
  -rss_limit_mb=4096     # the reader's memory is bounded: more is a finding
  -max_len=262144        # the seeds are the examples' IRs (9-140 KB)
  -print_final_stats=1
  -artifact_prefix="$work/../"
)
[ -n "$dict" ] && [ -f "$dict" ] && options+=(-dict="$dict")
# Graphviz keeps process-lifetime caches that LeakSanitizer would report as leaks.
export LSAN_OPTIONS="suppressions=$here/../lsan_graphviz.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec "$program" "${options[@]}" "$work" "${seeds[@]}"
