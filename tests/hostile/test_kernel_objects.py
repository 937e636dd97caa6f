"""Kernel objects a submission could leave behind or aim at its warm template: SysV and POSIX IPC (which would
outlive the child, shared by every child of one template), resource limits of the template (prlimit64), and
signals to it by pidfd or by making it the owner of a file's SIGIO. Each attack is refused with EPERM, nothing
reaches the next child or submission, and the template keeps serving without a restart."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from grader.judge import grade
from grader.launch import CGROUP_SLACK_BYTES, TEMPLATE_MEMORY_BYTES
from grader.limits import Limits
from grader.pool import WorkerPool
from grader.problems import Problem
from grader.report import Report
from tests.conftest import assert_pool_idle_and_clean, assert_pool_removed, new_pool, template_host_pids
from tests.hostile.conftest import wait_until_all_idle
from tests.hostile.hostile_support import messages

REFUSED = "refused errno 1"  # EPERM, from the seccomp filter
_keys = itertools.count(0x5EC0)  # a fresh IPC key per test, so no test reads what another one left


@pytest.fixture(scope="module")
def one_template(sandbox_status: str | None) -> Iterator[WorkerPool]:
    """A pool of exactly one template: every child of every grading here is forked from the same process, so
    whatever one child leaves in the template's namespaces the next one would find."""
    if sandbox_status is not None:
        pytest.skip(f"no sandbox on this machine: {sandbox_status}")
    pool = new_pool(1)
    yield pool
    pool.close()
    assert_pool_removed(pool)


def graded_without_restart(pool: WorkerPool, problem: Problem, correct: str, *codes: str) -> list[Report]:
    """Grade `codes` one after another on `pool`, then the correct solution; the template must be the same
    process throughout and the correct solution solved."""
    wait_until_all_idle(pool)
    before = template_host_pids(pool)
    reports = [grade(problem, code, pool=pool) for code in codes]
    after_attack = grade(problem, correct, pool=pool)
    assert after_attack.solved, [(c.id, c.status, c.message[:300]) for c in after_attack.checks]
    wait_until_all_idle(pool)
    assert template_host_pids(pool) == before, "the template was replaced: the attack reached it"
    assert_pool_idle_and_clean(pool)
    return reports


def outcome(report: Report, check_id: str, label: str) -> str:
    """What the submission wrote after `label` in the exception it raised for this check: `LABEL [text]`."""
    found = re.search(rf"{label} \[(.*?)\]", messages(report)[check_id])
    assert found, messages(report)[check_id][:500]
    return found.group(1)


# ------------------------------------------------------------------------------------------- SysV + POSIX IPC

# The IPC calls run in a fresh interpreter the submission starts, as an attacker would: the worker's audit hook
# refuses ctypes in-process, but nothing stops a child from exec'ing Python, and only the kernel (the seccomp
# filter the exec'd program inherits) stands between it and the template's IPC namespace.
IPC_PROGRAM = '''
import ctypes, os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
KEY = IPC_KEY
NAME = b"/paperlab-%d" % KEY
IPC_CREAT, IPC_NOWAIT, SETVAL, GETVAL = 0o1000, 0o4000, 16, 12
SECRET = b"left-by-%d" % os.getppid()
FAILED_ADDRESS = ctypes.c_void_p(-1).value


def refused(call):
    return f"{call} refused errno {ctypes.get_errno()}"


class Message(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("text", ctypes.c_char * 64)]


def shm_segment(create):
    ident = libc.shmget(KEY, 4096, IPC_CREAT | 0o666 if create else 0)
    if ident < 0:
        return refused("shmget")
    address = libc.shmat(ident, None, 0)
    if address in (None, FAILED_ADDRESS):
        return refused("shmat")
    if create:
        ctypes.memmove(address, SECRET, len(SECRET))
        return "left"
    return "found " + ctypes.string_at(address, 32).rstrip(b"\\0").decode()


def message_queue(create):
    ident = libc.msgget(KEY, IPC_CREAT | 0o666 if create else 0)
    if ident < 0:
        return refused("msgget")
    message = Message(1, SECRET)
    if create:
        return "left" if libc.msgsnd(ident, ctypes.byref(message), 64, IPC_NOWAIT) == 0 else refused("msgsnd")
    if libc.msgrcv(ident, ctypes.byref(message), 64, 0, IPC_NOWAIT) < 0:
        return refused("msgrcv")
    return "found " + message.text.decode()


def semaphore(create):
    ident = libc.semget(KEY, 1, IPC_CREAT | 0o666 if create else 0)
    if ident < 0:
        return refused("semget")
    if create:
        return "left" if libc.semctl(ident, 0, SETVAL, 4242) == 0 else refused("semctl")
    return f"found {libc.semctl(ident, 0, GETVAL)}"


def posix_queue(create):
    descriptor = libc.mq_open(NAME, os.O_CREAT | os.O_RDWR if create else os.O_RDONLY | os.O_NONBLOCK, 0o600, None)
    if descriptor < 0:
        return refused("mq_open")
    if create:
        return "left" if libc.mq_send(descriptor, SECRET, len(SECRET), 0) == 0 else refused("mq_send")
    buffer = ctypes.create_string_buffer(8192)
    size = libc.mq_receive(descriptor, buffer, 8192, None)
    return refused("mq_receive") if size < 0 else "found " + buffer.raw[:size].decode()
'''

IPC_SUBMISSION = '''
import os, subprocess, sys

PROGRAM = IPC_PROGRAM_TEXT


def in_fresh_interpreter(call):
    done = subprocess.run([sys.executable, "-I", "-c", PROGRAM + f"\\nprint({call})"], capture_output=True,
                          text=True, timeout=20)
    return done.stdout.strip() or f"exit {done.returncode}: {done.stderr.strip()[-200:]}"


SEEN = in_fresh_interpreter("IPC_KIND(create=False)")  # what an earlier child of this template left
LEFT = in_fresh_interpreter("IPC_KIND(create=True)")
REPORT = f"SEEN [{SEEN}] LEFT [{LEFT}]"


def add_one(x):
    if RESTART_EACH_CALL:
        os._exit(0)  # the next check then runs on a fresh child of the same template, which loads this again
    raise RuntimeError(REPORT)


def scaled_sum(x, factor):
    raise RuntimeError(REPORT)
'''

IPC_KINDS = [
    pytest.param("shm_segment", "shmget", id="sysv-shared-memory"),
    pytest.param("message_queue", "msgget", id="sysv-message-queue"),
    pytest.param("semaphore", "semget", id="sysv-semaphore"),
    pytest.param("posix_queue", "mq_open", id="posix-message-queue"),
]


def ipc_submission(kind: str, *, restart_each_call: bool) -> str:
    program = IPC_PROGRAM.replace("IPC_KEY", str(next(_keys)))
    return (IPC_SUBMISSION.replace("IPC_PROGRAM_TEXT", repr(program)).replace("IPC_KIND", kind)
            .replace("RESTART_EACH_CALL", str(restart_each_call)))


@pytest.mark.parametrize(("kind", "call"), IPC_KINDS)
def test_ipc_objects_cannot_be_created(one_template: WorkerPool, adder: Problem, adder_correct: str, kind: str,
                                       call: str) -> None:
    (report,) = graded_without_restart(one_template, adder, adder_correct,
                                       ipc_submission(kind, restart_each_call=False))
    assert outcome(report, "add_one.values", "LEFT") == f"{call} {REFUSED}"


@pytest.mark.parametrize(("kind", "call"), IPC_KINDS)
def test_ipc_left_by_one_submission_does_not_reach_the_next(one_template: WorkerPool, adder: Problem,
                                                             adder_correct: str, kind: str, call: str) -> None:
    code = ipc_submission(kind, restart_each_call=False)
    first, second = graded_without_restart(one_template, adder, adder_correct, code, code)
    assert not outcome(second, "add_one.values", "SEEN").startswith("found"), messages(second)
    assert outcome(first, "add_one.values", "LEFT") == f"{call} {REFUSED}"


@pytest.mark.parametrize(("kind", "call"), IPC_KINDS)
def test_ipc_left_by_one_child_does_not_reach_the_next_child(one_template: WorkerPool, adder: Problem,
                                                              adder_correct: str, kind: str, call: str) -> None:
    """add_one ends its child each time, so the scaled_sum checks run on a later child of the same template, one
    that loaded the submission after two earlier children had tried to leave something."""
    (report,) = graded_without_restart(one_template, adder, adder_correct,
                                       ipc_submission(kind, restart_each_call=True))
    assert "ended the worker process" in messages(report)["add_one.values"]
    for check_id in ("scaled_sum.values", "scaled_sum.gradient"):
        assert not outcome(report, check_id, "SEEN").startswith("found"), messages(report)
        assert outcome(report, check_id, "LEFT") == f"{call} {REFUSED}"


# ------------------------------------------------------------------------- limits and scheduling of others

ATTEMPT = '''
import os, resource

def attempt():
    try:
        ATTEMPT_CODE
        return "done"
    except OSError as exc:
        return f"refused errno {exc.errno}"

OUTCOME = attempt()

def add_one(x):
    raise RuntimeError(f"OUTCOME [{OUTCOME}]")

def scaled_sum(x, factor):
    raise RuntimeError(f"OUTCOME [{OUTCOME}]")
'''


@pytest.mark.parametrize(
    "code",
    [
        # Every later child inherits the template's limits: a lowered address space fails them all while loading.
        pytest.param("resource.prlimit(os.getppid(), resource.RLIMIT_AS, (256 << 20, 256 << 20))",
                     id="template-address-space"),
        pytest.param("resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (8, 8))", id="template-open-files"),
        pytest.param("resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (30, 30))", id="template-cpu"),
        pytest.param("resource.prlimit(1, resource.RLIMIT_AS, (256 << 20, 256 << 20))", id="sandbox-init"),
        pytest.param("resource.prlimit(os.getpid(), resource.RLIMIT_CORE, (0, 0))", id="itself-by-pid"),
        # ... and its scheduling: every later child would run at nice 19 or under SCHED_IDLE.
        pytest.param("os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)", id="template-nice"),
        pytest.param("os.setpriority(os.PRIO_USER, 0, 19)", id="every-process-of-the-uid-nice"),
        pytest.param("os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))",
                     id="template-idle-policy"),
        pytest.param("os.sched_setaffinity(os.getppid(), {0})", id="template-affinity"),
    ],
)
def test_limits_and_scheduling_of_the_template_cannot_be_changed(one_template: WorkerPool, adder: Problem,
                                                                  adder_correct: str, code: str) -> None:
    (report,) = graded_without_restart(one_template, adder, adder_correct, ATTEMPT.replace("ATTEMPT_CODE", code))
    assert outcome(report, "add_one.values", "OUTCOME") == REFUSED


@pytest.mark.parametrize(
    "code",
    [
        pytest.param("resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))", id="setrlimit"),
        pytest.param("resource.prlimit(0, resource.RLIMIT_CORE, (0, 0))", id="prlimit-pid-0"),
        pytest.param("os.nice(1)", id="nice"),
    ],
)
def test_a_submission_may_still_change_its_own_limits(one_template: WorkerPool, adder: Problem,
                                                      adder_correct: str, code: str) -> None:
    """glibc's setrlimit is prlimit64(0, ...) and os.nice is setpriority(PRIO_PROCESS, 0): they keep working."""
    (report,) = graded_without_restart(one_template, adder, adder_correct, ATTEMPT.replace("ATTEMPT_CODE", code))
    assert outcome(report, "add_one.values", "OUTCOME") == "done"


# -------------------------------------------------------------------------------------- signals to others

SIGNALS = '''
import fcntl, os, signal, socket, struct

TARGET = os.getppid()  # the warm template this child was forked from
F_SETOWN, F_SETSIG, F_SETOWN_EX, F_OWNER_PID = 8, 10, 15, 1
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902


def deliver_sigio(mine, other):
    """With O_ASYNC, data arriving on `mine` sends SIGIO (default action: terminate) to the socket's owner."""
    fcntl.fcntl(mine, fcntl.F_SETFL, fcntl.fcntl(mine, fcntl.F_GETFL) | os.O_ASYNC)
    other.send(b"x")


def pidfd_open():
    signal.pidfd_send_signal(os.pidfd_open(TARGET), signal.SIGKILL)


def proc_directory_as_pidfd():
    signal.pidfd_send_signal(os.open(f"/proc/{TARGET}", os.O_RDONLY | os.O_DIRECTORY), signal.SIGKILL)


def f_setown():
    mine, other = socket.socketpair()
    fcntl.fcntl(mine, F_SETOWN, TARGET)
    deliver_sigio(mine, other)


def f_setown_ex():
    mine, other = socket.socketpair()
    fcntl.fcntl(mine, F_SETOWN_EX, struct.pack("ii", F_OWNER_PID, TARGET))
    deliver_sigio(mine, other)


def f_setsig():
    mine, other = socket.socketpair()
    fcntl.fcntl(mine, F_SETSIG, signal.SIGKILL)  # the owner would then get SIGKILL instead of SIGIO


def fiosetown():
    mine, other = socket.socketpair()
    fcntl.ioctl(mine, FIOSETOWN, struct.pack("i", TARGET))
    deliver_sigio(mine, other)


def siocspgrp():
    mine, other = socket.socketpair()
    fcntl.ioctl(mine, SIOCSPGRP, struct.pack("i", TARGET))
    deliver_sigio(mine, other)


def attempt():
    try:
        ATTACK()
        return "done"
    except OSError as exc:
        return f"refused errno {exc.errno}"

OUTCOME = attempt()

def add_one(x):
    raise RuntimeError(f"OUTCOME [{OUTCOME}]")

def scaled_sum(x, factor):
    raise RuntimeError(f"OUTCOME [{OUTCOME}]")
'''


@pytest.mark.parametrize(
    "attack",
    [
        "pidfd_open",  # refused on main already; kept so it stays refused
        "proc_directory_as_pidfd",  # pidfd_send_signal takes a /proc/PID directory as well as a pidfd
        "f_setown",
        "f_setown_ex",
        "f_setsig",
        "fiosetown",
        "siocspgrp",
    ],
)
def test_signals_to_the_template_are_refused(one_template: WorkerPool, adder: Problem, adder_correct: str,
                                             attack: str) -> None:
    (report,) = graded_without_restart(one_template, adder, adder_correct, SIGNALS.replace("ATTACK", attack))
    assert outcome(report, "add_one.values", "OUTCOME") == REFUSED



# ------------------------------------------------------------------------------ the template's own resources


def test_the_template_tree_has_a_memory_cap(one_template: WorkerPool, adder: Problem) -> None:
    """Whatever a child could leave charged to the template's tree (its tmpfs pages, an unknown leak) is bounded:
    the template, one child at its limit, the sandbox's tmpfs."""
    (template,) = one_template._all  # noqa: SLF001 - the test reads where the pool keeps its template
    assert template.cgroup is not None
    memory = template.cgroup.paths.get("memory", template.cgroup.paths.get("unified"))
    assert memory is not None
    name = "memory.max" if template.cgroup.version == 2 else "memory.limit_in_bytes"
    cap = int((memory / name).read_text())
    child_cap = (adder.limits.memory_mb << 20) + CGROUP_SLACK_BYTES
    assert cap >= TEMPLATE_MEMORY_BYTES + child_cap
    assert cap <= TEMPLATE_MEMORY_BYTES + (Limits().memory_mb << 20) + CGROUP_SLACK_BYTES + (256 << 20)


ORPHANS = '''
import os, time

def leave_orphans(count):
    """Each grandchild outlives its parent, so it is re-parented to the sandbox's pid 1, then exits."""
    for _ in range(count):
        pid = os.fork()
        if pid == 0:
            if os.fork() == 0:
                time.sleep(0.1)
            os._exit(0)
        os.waitpid(pid, 0)

def zombies():
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as stat:
                if name.isdigit() and stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    found.append(int(name))
        except OSError:
            pass
    return found

def add_one(x):
    leave_orphans(5)
    time.sleep(0.5)
    raise RuntimeError(f"ZOMBIES [{' '.join(map(str, zombies()))}]")

def scaled_sum(x, factor):
    raise RuntimeError(f"ZOMBIES [{' '.join(map(str, zombies()))}]")
'''


def test_orphans_are_reaped_by_pid_1(one_template: WorkerPool, adder: Problem, adder_correct: str) -> None:
    """The template is the sandbox's pid 1, so the orphans of a child's tree are its own to reap: an unreaped
    zombie keeps its pid charged to the job's cgroup and then to the template's tree."""
    (report,) = graded_without_restart(one_template, adder, adder_correct, ORPHANS)
    assert outcome(report, "add_one.values", "ZOMBIES") == ""  # the pids of any zombie left
