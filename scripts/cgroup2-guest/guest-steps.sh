#!/bin/sh
# One run of the focused set: guest-steps.sh MODE EXPECTED_CGROUP_BASE. Prints one line per test:
#   CGROUP2-RESULT {"mode": ..., "test": ..., "status": "passed"|"failed"|"timeout", "seconds": ...}
set -u
mode=$1
base=$2
py=/opt/venv/bin/python
here=scripts/cgroup2-guest
export CGROUP2_MODE="$mode" PYTHONPATH="$here" PYTHONDONTWRITEBYTECODE=1
echo "CGROUP2-MODE mode=$mode uid=$(id -u) cgroup=$(cut -d: -f3 /proc/self/cgroup)"

step() {  # step NAME TIMEOUT_S COMMAND...
  name=$1 limit=$2
  shift 2
  start=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@" >"/tmp/step-$mode-$name.log" 2>&1
  code=$?
  seconds=$(echo "$(date +%s.%N) $start" | awk '{printf "%.1f", $1 - $2}')
  case $code in
    0) status=passed ;;
    124 | 137) status=timeout ;;
    *) status=failed ;;
  esac
  if [ "$status" != passed ]; then
    echo "---- $mode/$name exited $code; its output:"
    tail -n 60 "/tmp/step-$mode-$name.log"
    echo "----"
  fi
  printf 'CGROUP2-RESULT {"mode": "%s", "test": "%s", "status": "%s", "seconds": %s, "exit": %s}\n' \
    "$mode" "$name" "$status" "$seconds" "$code"
}

step probe 300 $py "$here/check_probe.py" "$base"
cat "/tmp/step-$mode-probe.log"

# The hostile tests print their own result lines (result_plugin.py); the step line covers the whole session.
step hostile 900 $py -m pytest -p result_plugin -p no:cacheprovider -q -o addopts= --timeout 300 \
  tests/hostile/test_limits.py::test_fork_bomb_is_capped_by_the_process_limit \
  tests/hostile/test_limits.py::test_thread_bomb_names_the_process_limit \
  tests/hostile/test_limits.py::test_memory_bomb_hits_the_memory_limit \
  tests/hostile/test_limits.py::test_memory_bomb_across_processes_hits_the_cgroup_limit \
  tests/hostile/test_isolation.py tests/hostile/test_cgroup_tree.py
grep '^CGROUP2-RESULT' "/tmp/step-$mode-hostile.log"

step moco-correct 600 $py "$here/grade_moco.py" problems/moco/reference.py true
cat "/tmp/step-$mode-moco-correct.log"
step moco-wrong 600 $py "$here/grade_moco.py" problems/moco/mutants/ema_in_place.py false
cat "/tmp/step-$mode-moco-wrong.log"
