"""A seccomp filter each grading child installs on itself before the learner's code runs.

Namespaces already isolate the child from the host. This is the second wall, inside the sandbox: the child may
not debug or read other processes (ptrace, process_vm_*), load kernel or BPF programs, make namespaces or
mounts, use io_uring or keyrings, open sockets other than AF_UNIX, or signal its template (the warm parent it
was forked from) or the sandbox's init — which it otherwise could, sharing their uid and pid namespace.

Written as raw classic BPF with the standard library only, because it runs inside the sandbox beside
worker.py. x86_64 only; elsewhere the child runs without it (the namespaces and cgroups still apply).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

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
OFFSET_ARG0_LOW = 16  # little-endian: the low 32 bits of args[0]

AF_UNIX = 1

# x86_64 system call numbers denied outright.
DENIED_X86_64 = {
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "bpf": 321, "perf_event_open": 298,
    "userfaultfd": 323, "keyctl": 250, "add_key": 248, "request_key": 249, "mount": 165, "umount2": 166,
    "unshare": 272, "setns": 308, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "pidfd_open": 434, "pidfd_getfd": 438, "kexec_load": 246, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "reboot": 169, "swapon": 167, "swapoff": 168, "pivot_root": 155, "chroot": 161,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    "fsopen": 430, "fsmount": 432, "move_mount": 429, "open_tree": 428,
}
SIGNAL_CALLS_X86_64 = {"kill": 62, "tkill": 200, "tgkill": 234}
SOCKET_X86_64 = 41


def _instruction(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _errno(number: int) -> int:
    return SECCOMP_RET_ERRNO | number


def build_filter(protected_pids: list[int]) -> bytes:
    """The BPF program: deny the calls above, signals aimed at `protected_pids` (and at every process, -1),
    and sockets of any family but AF_UNIX; allow the rest."""
    protected = sorted({p & 0xFFFFFFFF for pid in protected_pids for p in (pid, -pid)} | {0xFFFFFFFF})
    program = [
        _instruction(LD_W_ABS, OFFSET_ARCH),
        _instruction(JEQ_K, AUDIT_ARCH_X86_64, jt=1),
        _instruction(RET_K, RET_KILL_PROCESS),  # another ABI (int 0x80) would bypass the numbers below
        _instruction(LD_W_ABS, OFFSET_NR),
        _instruction(JGE_K, X32_SYSCALL_BIT, jf=1),
        _instruction(RET_K, _errno(errno.EPERM)),
    ]
    for number in DENIED_X86_64.values():
        program += [_instruction(JEQ_K, number, jf=1), _instruction(RET_K, _errno(errno.EPERM))]
    for number in SIGNAL_CALLS_X86_64.values():
        block = [_instruction(LD_W_ABS, OFFSET_ARG0_LOW)]
        for pid in protected:
            block += [_instruction(JEQ_K, pid, jf=1), _instruction(RET_K, _errno(errno.EPERM))]
        block.append(_instruction(LD_W_ABS, OFFSET_NR))
        program += [_instruction(JEQ_K, number, jf=len(block)), *block]
    program += [
        _instruction(JEQ_K, SOCKET_X86_64, jf=4),
        _instruction(LD_W_ABS, OFFSET_ARG0_LOW),
        _instruction(JEQ_K, AF_UNIX, jt=1),
        _instruction(RET_K, _errno(errno.EAFNOSUPPORT)),
        _instruction(LD_W_ABS, OFFSET_NR),
        _instruction(RET_K, RET_ALLOW),
    ]
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
