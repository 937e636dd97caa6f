#!/bin/sh
# Inside the guest, as root: run the focused set as root, as an unprivileged user holding a subtree delegated
# the way systemd's Delegate=yes does it, and (the probe and two bombs) as root of a private cgroup namespace.
set -u
steps=scripts/cgroup2-guest/guest-steps.sh
# paperlab.modes=a,b on the kernel command line runs only those (run.sh's CGROUP2_GUEST_MODES, for debugging).
modes=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^paperlab.modes=//p' | tr ',' ' ')
modes=${modes:-root delegated container}
wanted() { case " $modes " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

wanted root && sh "$steps" root /sys/fs/cgroup/paperlab

# systemd, for a unit with Delegate=yes and User=paperlab: controllers enabled down to the unit's cgroup, the
# unit's cgroup and the files listed in /sys/kernel/cgroup/delegate chowned to the user, the unit's process
# started inside it. The unit's own cgroup.subtree_control is left to the user (systemd does not touch it).
echo "+pids +memory" >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p /sys/fs/cgroup/system.slice
echo "+pids +memory" >/sys/fs/cgroup/system.slice/cgroup.subtree_control
unit=/sys/fs/cgroup/system.slice/paperlab-worker.service
if wanted delegated; then
mkdir -p "$unit"
chown paperlab:paperlab "$unit"
for file in $(cat /sys/kernel/cgroup/delegate); do
  [ -e "$unit/$file" ] && chown paperlab:paperlab "$unit/$file"
done
sh -c 'echo $$ >"$1/cgroup.procs" && exec setpriv --reuid=paperlab --regid=paperlab --init-groups \
  env -i PATH=/usr/bin:/bin HOME=/home/paperlab LANG=C.UTF-8 sh "$2" delegated "$1"' sh "$unit" "$steps"
fi

# A container started with --cgroupns=private and a writable cgroup2 mount: its cgroup (a scope, as Docker makes
# one under systemd) is the root of its own cgroup namespace, and it mounts cgroup2 from inside. The grader runs
# as the container's root. A shorter set: the same code path as the delegated run, from a namespace's root.
scope=/sys/fs/cgroup/system.slice/docker-paperlab.scope
wanted container || exit 0
mkdir -p "$scope"
sh -c 'echo $$ >"$1/cgroup.procs" && exec unshare --cgroup --mount --propagation private \
  sh -c "umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && CGROUP2_STEPS=container exec sh \"\$0\" container /sys/fs/cgroup" \
  "$2"' sh "$scope" "$steps"
