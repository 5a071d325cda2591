#!/usr/bin/env bash
# Builds the release tree and runs the benchmarks; each prints its figures and the ratios to the
# reference numbers of the issues. Usage: scripts/bench.sh [PART...]  (default: every part)
#   parts: trace training ir diagram specrun pipeline xray serve
# Run it on a quiet machine: the figures are wall times and show any other load.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
declare -A programs=(
  [trace]=bench_trace [training]=training_bench [ir]=ir_json_bench [diagram]=diagram_bench
  [specrun]=specrun_bench [pipeline]=pipeline_bench [xray]=bench_xray [serve]=serve_bench
)
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(trace training ir diagram specrun pipeline xray serve)
targets=()
for part in "${parts[@]}"; do
  [ -n "${programs[$part]:-}" ] || { echo "unknown part '$part' (known: ${!programs[*]})" >&2; exit 2; }
  targets+=("${programs[$part]}")
done
# The diagram part also lays out with the original app's renderer (@viz-js/viz, from npm).
for part in "${parts[@]}"; do [ "$part" != diagram ] || targets+=(diagram_bench_viz); done
bash "$root/scripts/build.sh" release "${targets[@]}"
for part in "${parts[@]}"; do
  echo "== $part"
  "$root/build/bench/$part/${programs[$part]}"
done
