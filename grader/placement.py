"""Which CPU a grading child runs on: one that no other child on the machine is pinned to, if there is one.

A child runs the learner's code on one thread and serves its calls on another, and the two hand over to each
other several hundred times a grading. On different CPUs each handover wakes the other CPU (on a virtual machine,
an idle CPU must first be brought out of its halt); pinned to one CPU, a handover is a plain context switch.

Pinning takes balancing away from the kernel, so it is done only where it cannot unbalance anything: at most one
pinned child per CPU, counted machine-wide (the processes of a Celery worker each have a pool of their own), and
the judge's own CPU offered last, since the judge works while its child computes. Children beyond one per CPU
run where the kernel puts them, as every child did before.

A CPU's slot is a name in the abstract Unix socket namespace, which one socket at a time can hold: nothing is
written anywhere, and a judge that dies frees its slots with its sockets. Children cannot reach these names (the
sandbox gives them a network namespace of their own). Placement is a speed-up only: where it cannot be done (one
CPU, a kernel that refuses) children run unpinned, and no verdict depends on it (a call's clock leaves out the
time its thread waited for a CPU).
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass
class Slot:
    """A child's CPU, held until `release`."""

    cpu: int
    holder: socket.socket | None

    def release(self) -> None:
        if self.holder is not None:
            self.holder.close()  # frees the name
            self.holder = None


class CpuPlacement:
    """Hands out the CPUs this process may use, one pinned child each, to every judge that shares `namespace`."""

    def __init__(self, namespace: str | None = None, cpus: Sequence[int] | None = None) -> None:
        self.namespace = namespace if namespace is not None else f"paperlab-cpu-{os.getuid()}"
        self.cpus = tuple(sorted(cpus if cpus is not None else os.sched_getaffinity(0)))

    def take(self) -> Slot | None:
        """A CPU no other child is pinned to, or None: there is none, or there is no choice to make."""
        if len(self.cpus) < 2:
            return None
        for cpu in preference(self.cpus, current_cpu()):
            holder = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                holder.bind(f"\0{self.namespace}-{cpu}")
            except OSError:  # held by another child's judge
                holder.close()
                continue
            return Slot(cpu, holder)
        return None


def preference(cpus: Sequence[int], judge_cpu: int | None) -> list[int]:
    """The order CPUs are offered in: the judge's own last, since it works while its child computes (the replies
    it checks, the requests it builds), and a child beside it would queue behind it."""
    return sorted(cpus, key=lambda cpu: cpu == judge_cpu)


def current_cpu() -> int | None:
    """The CPU the calling thread last ran on (this one), from /proc; None where that cannot be read."""
    try:
        with open("/proc/thread-self/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return None


def pin(pid: int, cpu: int) -> bool:
    """Run every thread of process `pid` (a host pid) on `cpu` only; threads it starts later inherit it. False
    when the kernel refuses or the process is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    pinned = False
    for task in tasks:
        with contextlib.suppress(OSError, ValueError):
            os.sched_setaffinity(int(task), {cpu})
            pinned = True
    return pinned


__all__ = ["CpuPlacement", "Slot", "current_cpu", "pin", "preference"]
