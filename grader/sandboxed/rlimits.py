"""The resource limits each child sets for itself, always from the template's limits as it started."""

from __future__ import annotations

import resource
from typing import Any

PRISTINE: dict[int, tuple[int, int]] = {}  # every resource limit of the template as it started
# Beyond memory_mb, for what the child itself allocates while it serves the learner's calls (decoded requests,
# replies, the interpreter's own objects). Without it an allocation of exactly memory_mb fitted or not by a few
# pages, by how the template's heap happened to lie: 8 KiB short in a template warmed with an optimiser, 836 KiB
# spare in one without (measured with torch 2.13).
DATA_RESERVE_BYTES = 8 * 1024 * 1024


def current_limits() -> dict[int, tuple[int, int]]:
    return {getattr(resource, name): resource.getrlimit(getattr(resource, name))
            for name in dir(resource) if name.startswith("RLIMIT_")}


def child_rlimits(limits: dict[str, Any], *, vm_data_kb: int, processes_capped: bool) -> dict[int, int]:
    """The resource limits a child sets, by resource. RLIMIT_NPROC counts every process of the user, the
    template's and the other children's included, and is ignored for root: where the child's own cgroup caps
    its processes (pids.max) the child leaves it as the template had it, so that a fork or thread bomb runs into
    pids.max and its verdict names the process limit. Without a cgroup, RLIMIT_NPROC is the only cap there is."""
    wanted = {
        resource.RLIMIT_DATA: vm_data_kb * 1024 + int(limits["memory_mb"]) * 1024 * 1024 + DATA_RESERVE_BYTES,
        resource.RLIMIT_CPU: int(limits["cpu_time_s"]),
        resource.RLIMIT_FSIZE: int(limits["file_size_mb"]) * 1024 * 1024,
        resource.RLIMIT_NOFILE: int(limits["open_files"]),
        resource.RLIMIT_CORE: 0,
        resource.RLIMIT_MSGQUEUE: 0,  # no POSIX message queue bytes (seccomp refuses mq_open too)
    }
    if not processes_capped:
        wanted[resource.RLIMIT_NPROC] = int(limits["max_processes"])  # effective only when not mapped to root
    return wanted


def apply_limits(limits: dict[str, Any], *, processes_capped: bool) -> None:
    """Set every resource limit of this child from the template's pristine limits, never from what it inherited
    (a submission once lowered the template's limits and every later child failed while loading)."""
    vm_data_kb = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                vm_data_kb = int(line.split()[1])
    wanted = child_rlimits(limits, vm_data_kb=vm_data_kb, processes_capped=processes_capped)
    for which, (soft, hard) in (PRISTINE or current_limits()).items():
        if which in wanted:
            # CPU: SIGXCPU at the soft limit (reported as the limit), SIGKILL one second later
            ceiling = wanted[which] + 1 if which == resource.RLIMIT_CPU else wanted[which]
            soft, hard = _at_most(wanted[which], hard), _at_most(ceiling, hard)
        resource.setrlimit(which, (soft, hard))


def _at_most(value: int, hard: int) -> int:
    return value if hard == resource.RLIM_INFINITY else min(value, hard)
