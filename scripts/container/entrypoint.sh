#!/bin/sh
# Container entry point: hand the grader a cgroup subtree it owns, then drop root for good.
#
# The sandbox caps each submission's processes and memory with cgroups (RLIMIT_NPROC is not enough), so the
# unprivileged grader needs a cgroup subtree it may write. What the container sees under /sys/fs/cgroup is its
# own cgroup (cgroup v2 with a private cgroup namespace; under v1 each controller directory is a bind mount of
# the container's cgroup), but runtimes mount it read-only unless the container is privileged. With
# CAP_SYS_ADMIN the entry point remounts it writable (still only this container's subtree), makes a 'paperlab'
# cgroup in it for the grader, and then runs the command as the 'paperlab' user with no capabilities left and
# no way to regain any (no_new_privs). Without CAP_SYS_ADMIN it says so and goes on: the grader then refuses
# to run submissions and says why, and a web server that grades nothing (Celery workers do) needs no cgroup.
set -eu

warn() {
  echo "paperlab-entrypoint: $*" >&2
}

# Make the cgroup mount at $1 writable when it is not (a read-only bind of the container's own cgroup).
writable() {
  [ -w "$1" ] || mount -o remount,bind,rw "$1"
}

# Every step is checked (`|| return 1`): errexit does not apply inside a function called from `if`.
setup_cgroups() {
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    writable /sys/fs/cgroup || return 1
    # v2's "no internal processes" rule: move this process (the future server) into a leaf, then delegate
    # the pids and memory controllers down to the grader's subtree.
    mkdir -p /sys/fs/cgroup/paperlab/server || return 1
    echo $$ > /sys/fs/cgroup/paperlab/server/cgroup.procs || return 1
    echo "+pids +memory" > /sys/fs/cgroup/cgroup.subtree_control || return 1
    echo "+pids +memory" > /sys/fs/cgroup/paperlab/cgroup.subtree_control || return 1
    chown -R paperlab /sys/fs/cgroup/paperlab || return 1
  else
    for controller in pids memory; do
      [ -d "/sys/fs/cgroup/$controller" ] || return 1
      writable "/sys/fs/cgroup/$controller" || return 1
      mkdir -p "/sys/fs/cgroup/$controller/paperlab" || return 1
      chown -R paperlab "/sys/fs/cgroup/$controller/paperlab" || return 1
    done
  fi
}

if [ "$(id -u)" = 0 ]; then
  if ! setup_cgroups 2>/dev/null; then
    warn "no writable cgroup hierarchy for the sandbox's process and memory caps: grading workers need"
    warn "--cap-add SYS_ADMIN (see docs/operations.md, Deployment); continuing without it"
  fi
  exec setpriv --reuid=paperlab --regid=paperlab --init-groups --no-new-privs "$@"
fi
exec "$@"
