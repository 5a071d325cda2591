#!/usr/bin/env bash
# nndna's main job on a fresh machine: install what is missing, build, and trace the default
# model (the seed's iterative diffusion denoiser), printing its summary and writing its IR.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" release nndna_cli
mkdir -p "$root/out"
"$root/build/src/cli/nndna" trace diffusion_denoiser --json "$root/out/diffusion_denoiser.ir.json"
