#!/bin/sh
# One run of the focused set: guest-steps.sh MODE EXPECTED_CGROUP_BASE, the steps named in CGROUP2_STEPS (all by
# default). Prints one line per test:
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

steps=${CGROUP2_STEPS:-probe hostile moco-correct moco-wrong}
wanted() { case " $steps " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
limits="tests/hostile/test_limits.py::test_fork_bomb_is_capped_by_the_process_limit
  tests/hostile/test_limits.py::test_thread_bomb_names_the_process_limit
  tests/hostile/test_limits.py::test_memory_bomb_hits_the_memory_limit
  tests/hostile/test_limits.py::test_memory_bomb_across_processes_hits_the_cgroup_limit"
pytest="$py -m pytest -p result_plugin -p no:cacheprovider -q --timeout 300"

wanted probe && step probe 300 $py "$here/check_probe.py" "$base"
wanted probe && cat "/tmp/step-$mode-probe.log"

# The pytest sessions print their own result lines (result_plugin.py); the step line covers the whole session.
if wanted hostile; then
  # shellcheck disable=SC2086 # word splitting of the test list is intended
  step hostile 900 $pytest $limits tests/hostile/test_isolation.py tests/hostile/test_cgroup_tree.py
  grep '^CGROUP2-RESULT' "/tmp/step-$mode-hostile.log"
fi
if wanted limits; then
  # shellcheck disable=SC2086
  step limits 600 $pytest $limits
  grep '^CGROUP2-RESULT' "/tmp/step-$mode-limits.log"
fi
for verdict in correct wrong; do
  wanted "moco-$verdict" || continue
  case $verdict in
    correct) step moco-correct 600 $py "$here/grade_moco.py" problems/moco/reference.py true ;;
    wrong) step moco-wrong 600 $py "$here/grade_moco.py" problems/moco/mutants/ema_in_place.py false ;;
  esac
  cat "/tmp/step-$mode-moco-$verdict.log"
done
