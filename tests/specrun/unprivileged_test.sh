#!/usr/bin/env bash
# The isolation tests as an unprivileged user (uid 65534), as docs/specrun.md describes:
#   1. in cgroups delegated to that user: the sandbox and attack tests pass with every layer in
#      force (a user namespace instead of root's namespaces; NNDNA_EXPECT_FULL_ISOLATION=1);
#   2. in cgroups it may not write: a run still works and says, without -v, which layers it lacks.
# Usage: unprivileged_test.sh BUILD_DIR. Needs root (to delegate and to switch users) and cgroup
# v1 memory and pids hierarchies for part 1 (a v2-only machine runs part 2 alone); exits 77
# (skipped) without root or setpriv.
set -uo pipefail
build="$1"
[[ $(id -u) -eq 0 ]] || { echo "skipped: needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "skipped: no setpriv"; exit 77; }

nobody=65534
work=$(mktemp -d /tmp/nndna-unprivileged-XXXXXX)
chmod 755 "$work"
mkdir "$work/cache" "$work/cache-undelegated" "$work/out"
chown -R $nobody:$nobody "$work/cache" "$work/cache-undelegated" "$work/out"
delegated=()
cleanup() {
  for group in "${delegated[@]}"; do rmdir "$group" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

as_nobody=(setpriv --reuid=$nobody --regid=$nobody --clear-groups --inh-caps=-all --bounding-set=-all)
failed=0
# A build tree inside a private directory (a clone made in `mktemp -d`, mode 0700) is out of that
# user's reach: nothing can be tested as it there.
if ! "${as_nobody[@]}" test -x "$build/bin/nndna"; then
  echo "skipped: uid $nobody cannot reach $build (a parent directory is private)"
  exit 77
fi

# 1. A group owned by nobody under this shell's own group in each v1 hierarchy with memory or pids.
while read -r target options; do
  for controller in memory pids; do
    [[ ",$options," == *",$controller,"* ]] || continue
    path=$(awk -F: -v c="$controller" '{ n = split($2, cs, ","); for (i = 1; i <= n; i++) if (cs[i] == c) print $3 }' /proc/self/cgroup)
    group="$target${path%/}/nndna-unprivileged-$$"
    mkdir "$group" && chown $nobody:$nobody "$group" "$group/cgroup.procs" "$group/tasks" && delegated+=("$group")
  done
done < <(findmnt -rn -t cgroup -o TARGET,OPTIONS)

if [[ ${#delegated[@]} -eq 2 ]]; then
  echo "== 1. as uid $nobody in delegated cgroups: ${delegated[*]}"
  (
    for group in "${delegated[@]}"; do echo $BASHPID > "$group/cgroup.procs"; done
    exec "${as_nobody[@]}" env NNDNA_EXPECT_FULL_ISOLATION=1 NNDNA_TEST_CACHE="$work/cache" \
      "$build/tests/specrun/specrun_test" --gtest_filter='Sandbox*:HostileSpec*:*CacheHit*:*Isolation*:*Swapping*'
  ) || failed=1
  (
    for group in "${delegated[@]}"; do echo $BASHPID > "$group/cgroup.procs"; done
    exec "${as_nobody[@]}" env NNDNA_TEST_CACHE="$work/cache" "$build/tests/specrun/specrun_cli_test"
  ) || failed=1
else
  echo "== 1. skipped: no cgroup v1 memory and pids hierarchies to delegate"
fi

echo "== 2. as uid $nobody in cgroups it may not write"
output=$("${as_nobody[@]}" "$build/bin/nndna" ir "$(dirname "$0")/../../examples/mlp_sin.cpp" \
  --cache-dir "$work/cache-undelegated" -o "$work/out/mlp_sin.json" 2>&1)
status=$?
echo "$output"
expected="nndna: warning: the spec ran without full isolation: missing a memory limit for the whole process tree"
if [[ $status -ne 0 ]]; then echo "FAIL: nndna ir exited with $status"; failed=1; fi
if ! grep -qF "$expected" <<<"$output"; then echo "FAIL: no line says: $expected"; failed=1; fi
[[ -s "$work/out/mlp_sin.json" ]] || { echo "FAIL: no IR written"; failed=1; }
exit $failed
