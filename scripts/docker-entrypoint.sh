#!/bin/sh
# Container entry point: hand the grader a cgroup subtree it owns, then drop root for good.
# The sandbox caps each submission's processes and memory with cgroups (RLIMIT_NPROC is not enough), so the
# unprivileged server needs a delegated subtree; everything else runs as the 'paperlab' user.
set -eu
if [ "$(id -u)" = 0 ]; then
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    mkdir -p /sys/fs/cgroup/paperlab/server
    echo $$ > /sys/fs/cgroup/paperlab/server/cgroup.procs
    echo "+pids +memory" > /sys/fs/cgroup/cgroup.subtree_control
    echo "+pids +memory" > /sys/fs/cgroup/paperlab/cgroup.subtree_control
    chown -R paperlab /sys/fs/cgroup/paperlab
  else
    for controller in pids memory; do
      mkdir -p "/sys/fs/cgroup/$controller/paperlab"
      chown -R paperlab "/sys/fs/cgroup/$controller/paperlab"
    done
  fi
  exec setpriv --reuid=paperlab --regid=paperlab --init-groups "$@"
fi
exec "$@"
