#!/usr/bin/env bash
# Installs every Debian package nndna's build, tests and benchmarks need on a fresh Debian 12
# machine. Idempotent: when everything is already installed it does nothing (no apt-get update).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache mold git
  # the sandbox's init is built against musl: its static start-up is about 1 ms faster (src/specrun)
  musl-tools
  # libraries nndna links
  libgraphviz-dev graphviz nlohmann-json3-dev libcli11-dev libfmt-dev libcpp-httplib-dev
  libdw-dev libelf-dev libssl-dev libcurl4-openssl-dev libseccomp-dev zlib1g-dev nettle-dev
  libmimalloc-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # ss: a test reads the server's listen backlog
  iproute2
  # fuzzing: clang with libFuzzer (build-fuzz/, scripts/fuzz.sh)
  clang-16 libclang-rt-16-dev
  # browser for the web-page tests; node (with npm) runs playwright-core for some of them
  # (tests/browser). The machine image ships Node 20 as the `nodejs` package: it is kept.
  chromium nodejs
)

# The web app is built with node and npm (src/server/web). The machine image ships Node 20 with its
# npm; Debian's nodejs is installed only where there is no node at all, and Debian's separate npm
# package is never installed (it conflicts with the image's node).
if ! command -v node >/dev/null 2>&1; then
  packages+=(nodejs)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
