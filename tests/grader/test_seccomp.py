"""grader.sandboxed.seccomp: what the filter decides for each system call, read by running its BPF program here."""

from __future__ import annotations

import errno
import struct
from dataclasses import dataclass

import pytest

from grader.sandboxed import seccomp

TEMPLATE, TEMPLATE_GROUP, INIT = 7, 7, 1
PROTECTED = [TEMPLATE, TEMPLATE_GROUP, INIT]
NUMBERS = {
    **seccomp.DENIED_X86_64,
    **{rule.name: rule.number for rule in seccomp.argument_rules(PROTECTED)},
    "read": 0, "mmap": 9, "futex": 202, "clone3": 435, "setrlimit": 160, "getpid": 39,
}


@dataclass
class Outcome:
    action: str  # "allow", "kill", or an errno name
    read_arguments: bool


def run(nr: int, args: tuple[int, ...] = (), *, arch: int = seccomp.AUDIT_ARCH_X86_64) -> Outcome:
    """Interpret the classic BPF program on one seccomp_data, as the kernel would."""
    program = seccomp.build_filter(PROTECTED)
    words = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    data = struct.pack("=iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    accumulator, pc, read_arguments = 0, 0, False
    while True:
        code, jt, jf, k = words[pc]
        if code == seccomp.LD_W_ABS:
            accumulator = struct.unpack_from("=I", data, k)[0]
            read_arguments |= k >= seccomp.OFFSET_ARGS
            pc += 1
        elif code in (seccomp.JEQ_K, seccomp.JGE_K):
            taken = accumulator == k if code == seccomp.JEQ_K else accumulator >= k
            pc += 1 + (jt if taken else jf)
        elif code == seccomp.RET_K:
            if k == seccomp.RET_ALLOW:
                return Outcome("allow", read_arguments)
            if k == seccomp.RET_KILL_PROCESS:
                return Outcome("kill", read_arguments)
            assert k & 0xFFFF0000 == seccomp.SECCOMP_RET_ERRNO
            return Outcome(errno.errorcode[k & 0xFFFF], read_arguments)
        else:
            raise AssertionError(f"unexpected BPF opcode {code:#x}")


def pid(value: int) -> int:
    return value & 0xFFFFFFFF


@pytest.mark.parametrize(
    ("name", "args", "action"),
    [
        # SysV and POSIX IPC: nothing may outlive the child in the template's IPC namespace.
        *[pytest.param(name, (), "EPERM", id=name) for name in (
            "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd",
            "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
            "mq_getsetattr")],
        # Resource limits: its own (pid 0, how glibc's setrlimit calls it) only.
        pytest.param("prlimit64", (0, 7, 0, 0), "allow", id="prlimit-self"),
        pytest.param("prlimit64", (TEMPLATE, 7, 0, 0), "EPERM", id="prlimit-template"),
        pytest.param("prlimit64", (1, 9, 0, 0), "EPERM", id="prlimit-init"),
        pytest.param("prlimit64", (42, 9, 0, 0), "EPERM", id="prlimit-any-other"),
        pytest.param("setrlimit", (7, 0), "allow", id="setrlimit"),
        # Signals by pidfd, and SIGIO ownership.
        pytest.param("pidfd_open", (TEMPLATE, 0), "EPERM", id="pidfd_open"),
        pytest.param("pidfd_getfd", (3, 4, 0), "EPERM", id="pidfd_getfd"),
        pytest.param("pidfd_send_signal", (3, 9, 0, 0), "EPERM", id="pidfd_send_signal"),
        pytest.param("fcntl", (3, seccomp.F_SETOWN, TEMPLATE), "EPERM", id="F_SETOWN"),
        pytest.param("fcntl", (3, seccomp.F_SETOWN_EX, 0x7FFF0000), "EPERM", id="F_SETOWN_EX"),
        pytest.param("fcntl", (3, seccomp.F_SETSIG, 9), "EPERM", id="F_SETSIG"),
        pytest.param("fcntl", (3, 3, 0), "allow", id="F_GETFL"),
        pytest.param("fcntl", (3, 4, 0o20000), "allow", id="F_SETFL"),
        pytest.param("fcntl", (3, 9, 0), "allow", id="F_GETOWN"),
        pytest.param("ioctl", (3, seccomp.FIOSETOWN, 0x7FFF0000), "EPERM", id="FIOSETOWN"),
        pytest.param("ioctl", (3, seccomp.SIOCSPGRP, 0x7FFF0000), "EPERM", id="SIOCSPGRP"),
        pytest.param("ioctl", (1, 0x5401, 0x7FFF0000), "allow", id="TCGETS"),
        # kill and friends: never the template, its group, init, or every process.
        pytest.param("kill", (TEMPLATE, 9), "EPERM", id="kill-template"),
        pytest.param("kill", (pid(-TEMPLATE_GROUP), 9), "EPERM", id="kill-template-group"),
        pytest.param("kill", (INIT, 9), "EPERM", id="kill-init"),
        pytest.param("kill", (pid(-1), 9), "EPERM", id="kill-everyone"),
        pytest.param("kill", (42, 9), "allow", id="kill-own-child"),
        pytest.param("tgkill", (TEMPLATE, TEMPLATE, 9), "EPERM", id="tgkill-template"),
        pytest.param("tkill", (42, 9), "allow", id="tkill-own-thread"),
        # The template's scheduling, inherited by every later child.
        pytest.param("setpriority", (seccomp.PRIO_PROCESS, 0, 19), "allow", id="nice-self"),
        pytest.param("setpriority", (seccomp.PRIO_PROCESS, TEMPLATE, 19), "EPERM", id="nice-template"),
        pytest.param("setpriority", (2, 0, 19), "EPERM", id="nice-own-uid"),
        pytest.param("sched_setscheduler", (TEMPLATE, 5, 0), "EPERM", id="idle-policy-template"),
        pytest.param("sched_setaffinity", (0, 8, 0), "allow", id="affinity-self"),
        pytest.param("sched_setaffinity", (INIT, 8, 0), "EPERM", id="affinity-init"),
        pytest.param("ioprio_set", (seccomp.IOPRIO_WHO_PROCESS, 0, 0), "allow", id="ioprio-self"),
        pytest.param("ioprio_set", (3, 0, 0), "EPERM", id="ioprio-own-uid"),
        # Sockets: AF_UNIX only.
        pytest.param("socket", (1, 1, 0), "allow", id="socket-unix"),
        pytest.param("socket", (2, 1, 0), "EAFNOSUPPORT", id="socket-inet"),
        # What computation uses passes.
        *[pytest.param(name, (), "allow", id=name) for name in ("read", "mmap", "futex", "clone3", "getpid")],
        pytest.param("ptrace", (16, TEMPLATE), "EPERM", id="ptrace"),
    ],
)
def test_the_filter_decides(name: str, args: tuple[int, ...], action: str) -> None:
    assert run(NUMBERS[name], args).action == action


def test_other_abis_are_killed_and_x32_refused() -> None:
    assert run(39, arch=0x40000003).action == "kill"  # i386 through int 0x80
    assert run(seccomp.X32_SYSCALL_BIT | 39).action == "EPERM"


def test_only_argument_rules_read_arguments() -> None:
    """Every other call is decided from its number alone, so the kernel caches the decision and skips the
    filter for it (this is what keeps the filter's cost off learner code)."""
    ruled = {rule.number for rule in seccomp.argument_rules(PROTECTED)}
    assert [nr for nr in range(512) if run(nr).read_arguments] == sorted(ruled)


def test_the_program_fits_the_kernel_limit() -> None:
    assert len(seccomp.build_filter(PROTECTED)) // 8 < 4096  # BPF_MAXINSNS
