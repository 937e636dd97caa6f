#!/bin/sh
# One run of the focused set: guest-steps.sh MODE EXPECTED_CGROUP_BASE, the step named in CGROUP2_STEPS ("hostile",
# the default, or "container", the shorter set). Prints one line per test:
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
  log=/tmp/step-$mode-$name.log
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 &
  pid=$!
  # The step's own result lines (pytest's, the probe's, a grading's), as they come.
  tail -n +1 -f --pid=$pid "$log" 2>/dev/null | grep --line-buffered -a '^CGROUP2-' &
  wait $pid
  code=$?
  sleep 1
  seconds=$(echo "$(date +%s.%N) $start" | awk '{printf "%.1f", $1 - $2}')
  case $code in
    0) status=passed ;;
    124 | 137) status=timeout ;;
    *) status=failed ;;
  esac
  if [ "$status" != passed ]; then
    echo "---- $mode/$name exited $code; its output:"
    tail -n 60 "$log"
    echo "----"
  fi
  printf 'CGROUP2-RESULT {"mode": "%s", "test": "%s", "status": "%s", "seconds": %s, "exit": %s}\n' \
    "$mode" "$name" "$status" "$seconds" "$code"
}

steps=${CGROUP2_STEPS:-hostile}
wanted() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# Under emulation a 50 MiB allocation takes seconds: the memory bombs and the overlap of two concurrent children
# run from test_limits_emulated.py, with the same submissions and verdicts and ten times the time limits.
export PAPERLAB_SLOW_MACHINE=1
limits="tests/hostile/test_limits.py::test_fork_bomb_is_capped_by_the_process_limit
  tests/hostile/test_limits.py::test_thread_bomb_names_the_process_limit
  tests/hostile/test_limits_emulated.py::test_memory_bomb_hits_the_memory_limit
  tests/hostile/test_limits_emulated.py::test_memory_bomb_across_processes_hits_the_cgroup_limit"
isolation="tests/hostile/test_isolation.py
  --deselect tests/hostile/test_isolation.py::test_concurrent_submissions_cannot_see_each_others_tmp
  tests/hostile/test_limits_emulated.py::test_concurrent_submissions_cannot_see_each_others_tmp"
# One pytest session per run, the probe first: every interpreter that imports torch costs a minute under
# emulation, so every test (the MoCo gradings included) shares the session's warm pool of two templates.
pytest="$py -m pytest -p result_plugin -p no:cacheprovider -q -s --timeout 900 $here/test_guest_probe.py"
export CGROUP2_EXPECTED_BASE="$base"

# The pytest sessions print their own result lines (result_plugin.py); the step line covers the whole session.
if wanted hostile; then
  # shellcheck disable=SC2086 # word splitting of the test list is intended
  step hostile 1200 $pytest $limits $isolation tests/hostile/test_cgroup_tree.py tests/hostile/test_moco_emulated.py
fi
# The container's shorter set: the same code path as the delegated run, from a namespace's root.
if wanted container; then
  # shellcheck disable=SC2086
  step container 900 $pytest tests/hostile/test_limits.py::test_fork_bomb_is_capped_by_the_process_limit \
    tests/hostile/test_limits_emulated.py::test_memory_bomb_across_processes_hits_the_cgroup_limit
fi
