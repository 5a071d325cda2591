#!/usr/bin/env bash
# `nndna`'s heap is advised MADV_HUGEPAGE (src/cli/large_os_pages.cpp) unless its environment says
# MIMALLOC_LARGE_OS_PAGES=0. Seen from inside: a program `nndna xray run` starts (its parent is
# nndna, which waits for it) reads nndna's /proc/<pid>/smaps, whose VmFlags say "hg" for a
# mapping advised MADV_HUGEPAGE ("ht" were it hugetlbfs pages).
# Usage: large_os_pages.sh NNDNA
set -euo pipefail
nndna=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The VmFlags of nndna's anonymous mappings of 2 MiB or more, one line each, with the environment
# given as arguments (VAR=value ...). xray's complaint that the program recorded no trace, and the
# exit status that goes with it, are not this test's business.
largeAnonymousFlags() {
  env "$@" "$nndna" xray run --json "$work/trace.json" -- sh -c 'cat "/proc/$PPID/smaps"' >"$work/smaps" 2>"$work/err" || true
  if ! grep -q '^VmFlags:' "$work/smaps"; then
    echo "FAIL: no smaps read through nndna xray run; its output:" >&2
    cat "$work/err" >&2
    exit 1
  fi
  awk '/^[0-9a-f]+-[0-9a-f]+ / { anonymous = (NF == 5 && $5 == "0"); large = 0 }
       /^Size:/ { large = anonymous && $2 >= 2048 }
       /^VmFlags:/ && large { print }' "$work/smaps"
}

advised=$(largeAnonymousFlags | grep -cE ' (hg|ht)( |$)' || true)
if [[ "$advised" -lt 1 ]]; then
  echo "FAIL: none of nndna's large anonymous mappings is advised huge pages:" >&2
  largeAnonymousFlags >&2
  exit 1
fi
echo "ok: $advised large anonymous mapping(s) of nndna advised huge pages"

declined=$(largeAnonymousFlags MIMALLOC_LARGE_OS_PAGES=0 | grep -cE ' (hg|ht)( |$)' || true)
if [[ "$declined" -ne 0 ]]; then
  echo "FAIL: with MIMALLOC_LARGE_OS_PAGES=0, $declined mapping(s) of nndna are still advised huge pages" >&2
  exit 1
fi
echo "ok: MIMALLOC_LARGE_OS_PAGES=0 in the environment is obeyed"
