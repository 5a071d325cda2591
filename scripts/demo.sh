#!/usr/bin/env bash
# nndna's main job on a fresh machine: install what is missing, build, and draw the default model
# (the seed's iterative diffusion denoiser) as a self-contained HTML page, out/diffusion_denoiser.html.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" release nndna_cli
mkdir -p "$root/out"
nndna="$root/build/bin/nndna"
"$nndna" trace diffusion_denoiser --json "$root/out/diffusion_denoiser.ir.json"
"$nndna" diagram --example diffusion_denoiser -o "$root/out/diffusion_denoiser.html"
echo "open $root/out/diffusion_denoiser.html in a browser (it works offline)"
