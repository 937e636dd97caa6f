"""A seccomp filter each grading child installs on itself before the learner's code runs.

Namespaces already isolate the child from the host. This is the second wall, inside the sandbox, for what the
child shares with its warm template (the process it was forked from, pid 1 of the sandbox) and with the
template's next children: their uid, their pid namespace and their IPC namespace. The child may not

- debug or read other processes (ptrace, process_vm_*), load kernel or BPF programs, make namespaces or mounts,
  use io_uring or keyrings, open sockets other than AF_UNIX;
- create SysV or POSIX IPC objects (shared memory, semaphores, message queues): they would outlive the child in
  the template's IPC namespace, charged to the template's cgroup, readable by the next submission;
- signal the template or the sandbox's init: kill/tkill/tgkill aimed at them, pidfd_send_signal (which also takes
  a /proc/PID directory), or making them the owner of a file's SIGIO (fcntl F_SETOWN/F_SETOWN_EX/F_SETSIG,
  ioctl FIOSETOWN/SIOCSPGRP);
- change another process's resource limits (prlimit64 with a pid other than 0; glibc's setrlimit is
  prlimit64(0, ...) and keeps working) or the template's scheduling (nice, policy, affinity, I/O priority),
  which every later child would inherit.

Cost: the filter runs on every system call of learner code. The kernel (5.11+) caches "always allowed" per
system call number when the filter decides it without reading arguments, and every argument load below sits
behind a test of the number, so the calls a computation makes (mmap, futex, read, ...) skip the filter
entirely. Of the calls whose arguments are read, the frequent ones (fcntl, ioctl) are tested first.

Written as raw classic BPF with the standard library only, because it runs inside the sandbox beside
worker.py. x86_64 only; elsewhere the child runs without it (the namespaces and cgroups still apply).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from dataclasses import dataclass

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
RET_K = 0x06

RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARGS = 16  # seccomp_data.args[i] at 16 + 8 i; little-endian, so its low 32 bits come first

AF_UNIX = 1
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902
PRIO_PROCESS = 0
IOPRIO_WHO_PROCESS = 1
ALL_PROCESSES = 0xFFFFFFFF  # pid -1 as the kernel reads a pid_t argument

# x86_64 system call numbers denied outright.
DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249, "mount": 165, "umount2": 166,
    "unshare": 272, "setns": 308, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "kexec_load": 246, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "pivot_root": 155, "chroot": 161,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    "fsopen": 430, "fsmount": 432, "move_mount": 429, "open_tree": 428,
    # pidfds: signals and memory operations on other processes by descriptor.
    "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "process_madvise": 440,
    "process_mrelease": 448,
    # SysV IPC (x86_64 has no ipc() multiplexer) and POSIX message queues.
    "shmget": 29, "shmat": 30, "shmdt": 67, "shmctl": 31,
    "semget": 64, "semop": 65, "semtimedop": 220, "semctl": 66,
    "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71,
    "mq_open": 240, "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
    "mq_getsetattr": 245,
}


@dataclass(frozen=True)
class ArgumentTest:
    """Refuse the call with `error` when (the low 32 bits of) argument `index` is one of `values`, or, with
    `allow_only`, when it is none of them."""

    index: int
    values: tuple[int, ...]
    allow_only: bool = False
    error: int = errno.EPERM


@dataclass(frozen=True)
class ArgumentRule:
    """A system call allowed unless one of its tests refuses it."""

    name: str
    number: int
    tests: tuple[ArgumentTest, ...]


def argument_rules(protected_pids: list[int]) -> list[ArgumentRule]:
    """The calls decided by their arguments, most frequent first. `protected_pids`: processes the child must not
    reach (the template, its process group, the sandbox's init); a pid argument of -pid means the group."""
    protected = tuple(sorted({p & 0xFFFFFFFF for pid in protected_pids for p in (pid, -pid)} | {ALL_PROCESSES}))
    protect_first = (ArgumentTest(0, protected),)
    return [
        ArgumentRule("fcntl", 72, (ArgumentTest(1, (F_SETOWN, F_SETSIG, F_SETOWN_EX)),)),
        ArgumentRule("ioctl", 16, (ArgumentTest(1, (FIOSETOWN, SIOCSPGRP)),)),
        ArgumentRule("prlimit64", 302, (ArgumentTest(0, (0,), allow_only=True),)),
        ArgumentRule("socket", 41, (ArgumentTest(0, (AF_UNIX,), allow_only=True, error=errno.EAFNOSUPPORT),)),
        ArgumentRule("kill", 62, protect_first),
        ArgumentRule("tkill", 200, protect_first),
        ArgumentRule("tgkill", 234, protect_first),
        ArgumentRule("sched_setaffinity", 203, protect_first),
        ArgumentRule("sched_setscheduler", 144, protect_first),
        ArgumentRule("sched_setparam", 142, protect_first),
        ArgumentRule("sched_setattr", 314, protect_first),
        # PRIO_PGRP and PRIO_USER would reach the template through its group or its uid.
        ArgumentRule("setpriority", 141, (ArgumentTest(0, (PRIO_PROCESS,), allow_only=True),
                                          ArgumentTest(1, protected))),
        ArgumentRule("ioprio_set", 251, (ArgumentTest(0, (IOPRIO_WHO_PROCESS,), allow_only=True),
                                         ArgumentTest(1, protected))),
    ]


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _errno(number: int) -> int:
    return SECCOMP_RET_ERRNO | number


def _argument_test(test: ArgumentTest) -> list[bytes]:
    program = [_instruction(LD_W_ABS, OFFSET_ARGS + 8 * test.index)]
    if test.allow_only:  # a match jumps over the remaining comparisons and the refusal
        count = len(test.values)
        program += [_instruction(JEQ_K, value, jt=count - position) for position, value in enumerate(test.values)]
        program.append(_instruction(RET_K, _errno(test.error)))
    else:
        for value in test.values:
            program += [_instruction(JEQ_K, value, jf=1), _instruction(RET_K, _errno(test.error))]
    return program


def _rule(rule: ArgumentRule) -> list[bytes]:
    body = [instruction for test in rule.tests for instruction in _argument_test(test)]
    body.append(_instruction(RET_K, RET_ALLOW))
    return [_instruction(JEQ_K, rule.number, jf=len(body)), *body]


def build_filter(protected_pids: list[int]) -> bytes:
    """The BPF program: kill other ABIs, refuse x32 numbers, decide the calls of `argument_rules` by their
    arguments, refuse DENIED_X86_64, allow the rest."""
    program = [
        _instruction(LD_W_ABS, OFFSET_ARCH),
        _instruction(JEQ_K, AUDIT_ARCH_X86_64, jt=1),
        _instruction(RET_K, RET_KILL_PROCESS),  # another ABI (int 0x80) would bypass the numbers below
        _instruction(LD_W_ABS, OFFSET_NR),
        _instruction(JGE_K, X32_SYSCALL_BIT, jf=1),
        _instruction(RET_K, _errno(errno.EPERM)),
    ]
    for rule in argument_rules(protected_pids):
        program += _rule(rule)  # each ends in a return, so the accumulator holds the number again after it
    for number in DENIED_X86_64.values():
        program += [_instruction(JEQ_K, number, jf=1), _instruction(RET_K, _errno(errno.EPERM))]
    program.append(_instruction(RET_K, RET_ALLOW))
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def supported() -> bool:
    return platform.machine() == "x86_64" and os.uname().sysname == "Linux"


def install(protected_pids: list[int]) -> bool:
    """Install the filter on the calling thread's process (it must be single-threaded). False if unsupported."""
    if not supported():
        return False
    program = build_filter(protected_pids)
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    return True
