"""Warm sandboxes: a pool of template processes (zygotes) that have imported torch, each forking one fresh,
single-use child per submission.

Why: importing torch in a fresh sandboxed interpreter costs about a second; forking a warmed template costs
about ten milliseconds (measured on a 2-core machine). A template serves one child at a time, so children
never share a /tmp, and each child runs in its own cgroup that is killed whole when the child is done.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import re
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import torch

from grader import protocol
from grader.calls import LimitKind, WorkerLost
from grader.interleave import Answer, Request
from grader.limits import Limits
from grader.messages import (
    CallsRequest,
    ChildExited,
    ControlMessage,
    ExceptionSummary,
    Forked,
    ForkRequest,
    Loaded,
    LoadRequest,
    TemplateReady,
    reply_from_wire,
)
from grader.sandbox import (
    Cgroup,
    CgroupError,
    SandboxUnavailable,
    bwrap_command,
    create_root_cgroup,
    host_pid_of,
    open_worker_files,
    probe,
    remove_stale_cgroups,
    worker_argv,
)

log = logging.getLogger(__name__)
Message = TypeVar("Message", bound=ControlMessage)

ZYGOTE_START_TIMEOUT_S = 120.0  # importing torch takes ~1.5 s; a loaded machine at a deadline may need far more
CONTROL_TIMEOUT_S = 10.0
STACK_SAMPLE_S = 0.5  # how long a call that ran out of time gets to say which line it was on
SUBMISSION_FRAME = re.compile(r'File "submission\.py", line (\d+)')
ZYGOTE_PIDS = 4096  # bound on a template's whole tree; each child's own cap is Limits.max_processes
CGROUP_SLACK_BYTES = 64 * 1024 * 1024  # allocator and kernel overhead beyond what RLIMIT_DATA lets Python have
TEMPLATE_RSS_MB = 350  # a warm template after importing torch and warming it up (measured ~310 MB, see bench)
# The template's own share of its tree's memory cap. Measured (cgroup v1, torch 2.x): its cgroup's peak charge is
# ~220 MB and its RSS ~315 MB (library pages first read by another process are charged there). 512 MB leaves
# room for a cold page cache, which the kernel reclaims before it would kill anything at the cap.
TEMPLATE_MEMORY_BYTES = 512 * 1024 * 1024
SHM_TMPFS_BYTES = 1024 * 1024  # the sandbox's /dev/shm (sandbox.bwrap_command)
STDERR_TAIL_BYTES = 8192  # what is kept of a template's stderr, for the message when it fails to start
MEMORY_BUDGET_SHARE = 0.8  # of the memory available when the pool starts


def available_memory_mb() -> int | None:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def templates_that_fit(requested: int, *, child_memory_mb: int, available_mb: int | None) -> int:
    """Cap the pool by memory: each template costs its own resident memory plus what its child may allocate."""
    if available_mb is None:
        return requested
    each = TEMPLATE_RSS_MB + child_memory_mb
    return max(1, min(requested, int(available_mb * MEMORY_BUDGET_SHARE) // each))


@dataclass
class ExitInfo:
    exit_code: int | None
    cpu_s: float = 0.0
    max_rss_kb: int = 0
    memory_exceeded: bool = False
    pids_exhausted: bool = False


def explain_exit(info: ExitInfo, limits: Limits) -> tuple[str, LimitKind]:
    """(reason, what ended it) for a child that died on its own."""
    code = info.exit_code
    if info.memory_exceeded:
        return f"memory limit {limits.memory_mb} MiB exceeded", "memory"
    if code in (-signal.SIGXCPU, -signal.SIGKILL) and info.cpu_s >= limits.cpu_time_s - 1:
        return f"CPU time limit {limits.cpu_time_s} s exceeded", "time"
    if info.pids_exhausted and code is not None and code != 0:
        return f"the worker process died after reaching the limit of {limits.max_processes} processes", "processes"
    if code == -signal.SIGSEGV:
        return "the worker process crashed with a segmentation fault", "crash"
    if code is not None and code < 0:
        return f"the worker process was killed by {signal.Signals(-code).name}", "crash"
    if code is None:
        return "the worker process disappeared", "crash"
    return f"your code ended the worker process (exit status {code}; a submission must not call os._exit)", "crash"


class Spawner:
    """Starts processes from one long-lived thread.

    bubblewrap's --die-with-parent uses PR_SET_PDEATHSIG, which fires when the *thread* that forked it exits,
    so a template started from a short-lived thread would be killed the moment that thread ends."""

    def __init__(self) -> None:
        self._requests: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="paperlab-spawner", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (request := self._requests.get()) is not None:
            function, future = request
            try:
                future.set_result(function())
            except BaseException as exc:  # noqa: B902 - handed to the caller
                future.set_exception(exc)

    def run(self, function: Callable[[], Any]) -> Any:
        future: Future[Any] = Future()
        self._requests.put((function, future))
        return future.result()

    def stop(self) -> None:
        self._requests.put(None)


def _cgroup_memory(limits: Limits) -> int:
    return limits.memory_mb * 1024 * 1024 + CGROUP_SLACK_BYTES


def template_tree_memory(limits: Limits, *, tmp_size_mb: int) -> int:
    """The memory cap of a template's whole tree: the template, one child at its own cap, and the sandbox's tmpfs
    (/tmp, /dev/shm), whose pages a child leaves charged to the tree until the template wipes them before the
    next fork. Nothing else may be left by a child (IPC is refused by seccomp), so a tree never needs more; the
    cap bounds what an unknown leak could pin."""
    return TEMPLATE_MEMORY_BYTES + _cgroup_memory(limits) + tmp_size_mb * 1024 * 1024 + SHM_TMPFS_BYTES


class StderrTail:
    """A template's stderr: a pipe that a daemon thread of the judge drains, keeping the last `limit` bytes.

    Not a file: the template is the sandbox's pid 1, and its stderr was a host temporary file that any child
    could append to through /proc/1/fd/2; a pipe has no path, and a full pipe never blocks the template."""

    def __init__(self, name: str, limit: int = STDERR_TAIL_BYTES) -> None:
        read_end, self.write_end = os.pipe()
        self.limit = limit
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(read_end,), name=f"paperlab-stderr-{name}",
                                        daemon=True)
        self._thread.start()

    def _drain(self, read_end: int) -> None:
        with open(read_end, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                with self._lock:
                    self._kept += chunk
                    del self._kept[:-self.limit]

    def close_write_end(self) -> None:
        """Once the template holds its copy: the drain then ends when the template's tree has exited."""
        with contextlib.suppress(OSError):
            os.close(self.write_end)

    def tail(self, chars: int = 2000, *, wait_s: float = 0.0) -> str:
        """The last `chars` characters; `wait_s`: let the drain catch up first (the template has just exited)."""
        self._thread.join(wait_s)
        with self._lock:
            text = self._kept.decode(errors="replace")
        return text[-chars:].strip() or "(no output)"


class Zygote:
    """One sandboxed template process and the single child it may have at a time."""

    def __init__(self, *, name: str, cgroup: Cgroup | None, bwrap: str | None, tmp_size_mb: int,
                 spawner: Spawner) -> None:
        self.name = name
        self.spawner = spawner
        self.root_cgroup = cgroup
        self.bwrap = bwrap
        self.tmp_size_mb = tmp_size_mb
        self.cgroup: Cgroup | None = None
        self.template_cgroup: Cgroup | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.pid_in_sandbox: int | None = None
        self.jobs = 0
        self.ready: Child | None = None  # a child forked ahead of demand, waiting for its submission
        self.tree_memory_bytes = 0  # the memory cap of this template's cgroup tree, raised to fit each child
        self._stderr = StderrTail(name)
        self._workdir = tempfile.TemporaryDirectory(prefix="paperlab-worker-")  # cwd of unsandboxed workers

    @property
    def sandboxed(self) -> bool:
        return self.bwrap is not None

    def start(self, timeout: float = ZYGOTE_START_TIMEOUT_S) -> None:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = worker_argv(worker_end.fileno(), sandboxed=self.sandboxed)
        worker_files: dict[str, int] = {}
        if self.sandboxed:
            assert self.root_cgroup is not None and self.bwrap is not None
            self.cgroup = self.root_cgroup.child(self.name, leaf=False)
            self._fit_tree_memory(Limits())  # pids and memory caps of the whole tree
            self.template_cgroup = self.cgroup.child("template", leaf=True)
            join = "; ".join(f"echo $$ > {path}/cgroup.procs" for path in self.template_cgroup.paths.values())
            worker_files = open_worker_files()
            command = ["/bin/sh", "-c", f'set -e; {join}; exec "$0" "$@"',
                       *bwrap_command(self.bwrap, tmp_size_mb=self.tmp_size_mb, argv=argv, worker_files=worker_files)]
            env = {"PATH": "/usr/bin:/bin"}
        else:
            command = argv
            env = {"PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(), "OMP_NUM_THREADS": "1",
                   "THP_MEM_ALLOC_ENABLE": "1"}
        try:
            self.process = self.spawner.run(lambda: subprocess.Popen(
                command, pass_fds=(worker_end.fileno(), *worker_files.values()), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr.write_end, env=env, start_new_session=True, close_fds=True,
                cwd="/" if self.sandboxed else self._workdir.name,
            ))
        finally:
            self._stderr.close_write_end()
            worker_end.close()
            for descriptor in worker_files.values():
                os.close(descriptor)
        self.control = host_end
        try:
            ready = self._receive(timeout, TemplateReady)
        except WorkerLost as exc:
            tail = self._stderr.tail(wait_s=1.0)
            self.close()
            raise SandboxUnavailable(f"the worker template did not start: {exc.reason}; {tail}") from None
        self.pid_in_sandbox = ready.pid

    def stderr_tail(self) -> str:
        """The end of what the template wrote on stderr (it writes only when something went wrong)."""
        return self._stderr.tail()

    def _fit_tree_memory(self, limits: Limits) -> None:
        """Raise the tree's memory cap to fit a child under `limits` (never lower it under a running tree)."""
        needed = template_tree_memory(limits, tmp_size_mb=self.tmp_size_mb)
        if self.cgroup is not None and needed > self.tree_memory_bytes:
            self.cgroup.limit(max_pids=ZYGOTE_PIDS, memory_bytes=needed)
            self.tree_memory_bytes = needed

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _receive(self, timeout: float, kind: type[Message]) -> Message:
        """The template's next control message, which must be a `kind`."""
        assert self.control is not None
        self.control.settimeout(timeout)
        try:
            data = self.control.recv(65536)
        except TimeoutError:
            raise WorkerLost("the worker template did not answer in time") from None
        except OSError as exc:
            raise WorkerLost(f"the worker template's channel failed: {exc}") from None
        if not data:
            raise WorkerLost("the worker template exited")
        try:
            return kind.from_wire(json.loads(data))  # type: ignore[return-value]
        except (ValueError, protocol.ProtocolError) as exc:
            raise WorkerLost(f"the worker template sent a malformed control message ({exc})") from None

    def take_child(self, limits: Limits) -> Child:
        """The child forked ahead of demand if there is one (re-capped for this problem), else a new one."""
        child, self.ready = self.ready, None
        if child is None:
            return self.fork(limits)
        child.limits = limits
        if child.cgroup is not None:
            self._fit_tree_memory(limits)
            child.cgroup.limit(max_pids=limits.max_processes, memory_bytes=_cgroup_memory(limits))
        return child

    def prepare(self, limits: Limits) -> None:
        """Fork the next child now, off the critical path of the next submission."""
        if self.ready is None and self.alive():
            try:
                self.ready = self.fork(limits, ahead=True)
            except WorkerLost as exc:
                log.warning("could not fork ahead in template %s: %s", self.name, exc)

    def fork(self, limits: Limits, *, ahead: bool = False) -> Child:
        """A fresh child in its own capped cgroup, waiting for its submission."""
        assert self.control is not None
        self.jobs += 1
        job_cgroup = None
        if self.cgroup is not None:
            self._fit_tree_memory(limits)
            job_cgroup = self.cgroup.child(f"job{self.jobs}", leaf=True)
            job_cgroup.limit(max_pids=limits.max_processes, memory_bytes=_cgroup_memory(limits))
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            request = ForkRequest(ahead=ahead)  # a child forked ahead of demand warms itself up while it waits
            socket.send_fds(self.control, [json.dumps(request.to_wire()).encode()], [worker_end.fileno()])
        except OSError as exc:
            host_end.close()
            raise WorkerLost(f"the worker template is gone ({exc})") from None
        finally:
            worker_end.close()
        pid = self._receive(CONTROL_TIMEOUT_S, Forked).pid
        host_pid = pid
        if job_cgroup is not None and self.template_cgroup is not None:
            found = host_pid_of(self.template_cgroup, pid)
            if found is None:
                raise WorkerLost("could not find the new worker process on the host")
            host_pid = found
            job_cgroup.add(host_pid)
        return Child(zygote=self, sock=host_end, host_pid=host_pid, cgroup=job_cgroup, limits=limits)

    def reap(self, child: Child) -> ExitInfo:
        """Kill the child's whole tree and collect how it ended."""
        memory = child.cgroup.memory_exceeded() if child.cgroup else False
        pids = child.cgroup.pids_exhausted() if child.cgroup else False
        if child.cgroup is not None:
            if not child.cgroup.kill_all():
                log.error("could not empty cgroup %s; retiring template %s", child.cgroup.paths, self.name)
                self.close()
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.host_pid, signal.SIGKILL)
        info = ExitInfo(exit_code=None, memory_exceeded=memory, pids_exhausted=pids)
        if self.alive():
            try:
                exited = self._receive(CONTROL_TIMEOUT_S, ChildExited)
                info.exit_code, info.cpu_s, info.max_rss_kb = exited.exit_code, exited.cpu_s, exited.max_rss_kb
            except WorkerLost:
                self.close()
        if child.cgroup is not None:
            info.memory_exceeded = info.memory_exceeded or child.cgroup.memory_exceeded()
            info.pids_exhausted = info.pids_exhausted or child.cgroup.pids_exhausted()
            child.cgroup.remove()
        return info

    def rss_kb(self) -> int:
        """Resident memory of the template's Python process (the one that imported torch)."""
        if self.process is None:
            return 0
        pids = self.template_cgroup.pids() if self.template_cgroup else [self.process.pid]
        best = 0
        for pid in pids:
            with contextlib.suppress(OSError, ValueError):
                with open(f"/proc/{pid}/status") as status:
                    for line in status:
                        if line.startswith("VmRSS:"):
                            best = max(best, int(line.split()[1]))
        return best

    def close(self) -> None:
        if self.ready is not None:
            with contextlib.suppress(OSError):
                self.ready.sock.close()
            self.ready = None
        if self.control is not None:
            self.control.close()
            self.control = None
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        if self.cgroup is not None:
            self.cgroup.kill_all()
            self.cgroup.remove()
        self._workdir.cleanup()


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


@dataclass
class Child:
    """One single-use worker process holding one submission."""

    zygote: Zygote
    sock: socket.socket
    host_pid: int
    cgroup: Cgroup | None
    limits: Limits
    exit_info: ExitInfo | None = None
    key: bytes = field(default_factory=lambda: os.urandom(32))  # signs every frame the child sends back
    stacks: int = -1  # read end of the pipe the child's faulthandler writes its stacks to
    source_lines: list[str] = field(default_factory=list)

    def exchange(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
                 what: str | Callable[[], str], total_s: float | None = None) -> Answer:
        """Send one request and wait for its reply; any way the child fails becomes WorkerLost naming why
        (`what` describes the request, built only for such a message). `total_s`: the timeout is what was left of
        the submission's total time limit of that many seconds, and a time-out says so."""
        deadline = time.monotonic() + timeout
        arena = self.send(request, blobs, deadline=deadline, timeout=timeout, what=what, total_s=total_s)
        return self.receive(arena, deadline=deadline, timeout=timeout, what=what, total_s=total_s)

    def send(self, request: CallsRequest, blobs: list[bytes], *, deadline: float, timeout: float,
             what: str | Callable[[], str], total_s: float | None = None) -> protocol.Arena:
        """Send a request; its tensors go in an arena the judge keeps mapped (returned, for `receive`)."""
        arena = protocol.Arena.create(blobs)
        try:
            with self._failures(timeout, what, total_s):
                self.sock.settimeout(max(0.001, deadline - time.monotonic()))
                protocol.send_frame(self.sock, request.to_wire(arena), fds=(arena.fd,) if arena.fd >= 0 else ())
        except BaseException:
            arena.close()
            raise
        arena.release_fd()
        return arena

    def send_load(self, request: LoadRequest, *, timeout: float, what: str, total_s: float | None = None) -> Answer:
        """The submission, with the key the child signs its replies with (`request.key` is this child's) and the
        pipe it dumps its stacks to."""
        self.source_lines = request.code.splitlines()
        stacks, theirs = os.pipe()
        os.set_blocking(stacks, False)
        self.stacks = stacks
        deadline = time.monotonic() + timeout
        try:
            with self._failures(timeout, what, total_s):
                self.sock.settimeout(timeout)
                protocol.send_frame(self.sock, request.to_wire(), fds=(theirs,))
        finally:
            os.close(theirs)
        return self.receive(None, deadline=deadline, timeout=timeout, what=what, total_s=total_s)

    def running_line(self) -> str:
        """Ask the child which line of the submission it is running (its stacks, dumped by faulthandler on
        SIGUSR1), as ' (it was running line N of your code: `...`)', or '' when it does not say in time."""
        if self.stacks < 0:
            return ""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.host_pid, signal.SIGUSR1)
        dump, end = b"", time.monotonic() + STACK_SAMPLE_S
        while time.monotonic() < end and len(dump) < 65536:
            # The dump comes in a few writes; once some of it is in, a short quiet spell means it is complete.
            wait = max(0.0, end - time.monotonic()) if not dump else min(0.05, max(0.0, end - time.monotonic()))
            readable, _, _ = select.select([self.stacks], [], [], wait)
            if not readable:
                break
            try:
                chunk = os.read(self.stacks, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break
            dump += chunk
        match = SUBMISSION_FRAME.search(dump.decode(errors="replace"))
        if match is None:
            return ""
        number = int(match.group(1))
        text = self.source_lines[number - 1].strip()[:120] if 0 < number <= len(self.source_lines) else ""
        return f" (it was running line {number} of your code" + (f": `{text}`)" if text else ")")

    def receive(self, arena: protocol.Arena | None, *, deadline: float, timeout: float,
                what: str | Callable[[], str], total_s: float | None = None) -> Answer:
        """The reply to the request whose arena this is, read whole before `deadline`; then the arena is
        compared with what the judge wrote into it and unmapped."""
        try:
            with self._failures(timeout, what, total_s):
                self._wait_for_reply(deadline)
                header, blobs = protocol.recv_frame(  # type: ignore[misc]
                    self.sock, max_blob_bytes=self.limits.message_mb * 1024 * 1024, key=self.key, deadline=deadline)
                message = reply_from_wire(header)  # a malformed reply is the learner's interference
            return Answer(message, blobs, arena.written() if arena is not None else ())
        finally:
            if arena is not None:
                arena.close()

    @contextlib.contextmanager
    def _failures(self, timeout: float, what: str | Callable[[], str], total_s: float | None) -> Iterator[None]:
        """Any way the child fails, as a WorkerLost that names the limit or the cause and `what` was asked."""
        try:
            yield
        except TimeoutError:
            extra = self._pids_note() + (self.running_line() if total_s is None else "")
            self.end()
            which = (f"time limit {timeout:g} s exceeded" if total_s is None
                     else f"total time limit {total_s:g} s for the whole submission used up")
            raise self._lost(f"{which} in {{what}}{extra}", "time" if total_s is None else "total_time", what) from None
        except protocol.Unsigned:
            self.end()
            raise self._lost("your code wrote on the grader's channel: a malformed message the worker did not "
                             "sign arrived during {what}", "tampering", what) from None
        except protocol.MessageTooLarge as exc:
            self.end()
            raise self._lost(f"{{what}} sent back {exc.size / 2**20:.1f} MiB; the limit is "
                             f"{exc.cap / 2**20:g} MiB", "message_size", what) from None
        except (EOFError, ConnectionError, BrokenPipeError, protocol.ProtocolError, OSError) as exc:
            info = self.end()
            if isinstance(exc, protocol.ProtocolError):
                raise self._lost("the worker sent a malformed message during {what}", "tampering", what) from None
            reason, limit = explain_exit(info, self.limits)
            raise self._lost(f"{_braces(reason)} during {{what}}{self._pids_note(info)}", limit, what) from None

    @staticmethod
    def _lost(reason: str, limit: LimitKind | None, what: str | Callable[[], str]) -> WorkerLost:
        description = what() if callable(what) else what
        return WorkerLost(reason.format(what=description), limit=limit)

    def _wait_for_reply(self, deadline: float) -> None:
        """Until the reply starts to arrive. Completion is decided by watching the child, not only the socket:
        a helper process of the learner's may hold the socket open after the child itself has died, and the
        template reports the child's exit on its control socket the moment it happens."""
        control = self.zygote.control
        watched = [self.sock] if control is None else [self.sock, control]
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            readable, _, _ = select.select(watched, [], [], remaining)
            if self.sock in readable:
                return
            if readable:
                raise EOFError("the child exited")

    def _pids_note(self, info: ExitInfo | None = None) -> str:
        exhausted = info.pids_exhausted if info else (self.cgroup.pids_exhausted() if self.cgroup else False)
        return f" (your code also hit the limit of {self.limits.max_processes} processes/threads)" if exhausted else ""

    def end(self) -> ExitInfo:
        if self.stacks >= 0:
            os.close(self.stacks)
            self.stacks = -1
        if self.exit_info is None:
            with contextlib.suppress(OSError):
                self.sock.close()
            self.exit_info = self.zygote.reap(self)
        return self.exit_info


@dataclass
class LoadResult:
    ok: bool
    functions: tuple[str, ...] = ()
    raised: ExceptionSummary | None = None
    output: str = ""
    duration_ms: float = 0.0


@dataclass
class WorkerSession:
    """A submission's conversation with the sandbox: load it, make calls, and start over on a fresh child
    (from the same warm template) when a call killed the current one."""

    pool: WorkerPool
    zygote: Zygote
    code: str
    limits: Limits
    seed: int = 0
    modules: dict[str, str] = field(default_factory=dict)
    banned_calls: tuple[str, ...] = ()
    child: Child | None = None
    loaded: LoadResult | None = None
    restarts: int = 0
    _started: float = field(default_factory=time.monotonic)

    def remaining(self) -> float:
        return self.limits.total_timeout_s - (time.monotonic() - self._started)

    def load(self) -> LoadResult:
        if not self.zygote.alive():
            self.zygote = self.pool._replace(self.zygote)
        try:
            self.child = self.zygote.take_child(self.limits)
        except WorkerLost:  # the template died under us (a previous child may have killed it): one fresh try
            self.zygote = self.pool._replace(self.zygote)
            self.child = self.zygote.take_child(self.limits)
        request = LoadRequest(code=self.code, seed=self.seed, limits=self.limits.model_dump(), modules=self.modules,
                              banned_calls=self.banned_calls, key=self.child.key.hex())
        # A restart late in the submission gets what is left of its total time, and a time-out then says so.
        timeout, total_s = self._within_total(self.limits.load_timeout_s)
        reply = self.child.send_load(request, timeout=timeout, what="loading your code", total_s=total_s).message
        if not isinstance(reply, Loaded):
            self.child.end()
            raise WorkerLost("the worker answered loading your code with a malformed reply", limit="tampering")
        self.loaded = LoadResult(ok=reply.ok, functions=reply.functions, raised=reply.raised, output=reply.output,
                                 duration_ms=reply.duration_ms)
        return self.loaded

    def calls(self, request: CallsRequest, blobs: list[bytes], *, timeout: float,
              what: str | Callable[[], str], function: str = "") -> Answer:
        """One request, under `timeout` and what is left of the submission's total time."""
        timeout, total_s = self._within_total(timeout)
        return self._live_child().exchange(request, blobs, timeout=timeout, what=what, total_s=total_s)

    def grouped_calls(self, requests: Sequence[Request]) -> Iterator[Answer]:
        """Several requests to the same child, pipelined: the next one is sent the moment a reply is in (and its
        arena compared), before the caller handles the reply. Each keeps its own time limit, counted from when
        it is sent, within what is left of the submission's total time. A failure raises WorkerLost for the
        request it happened in (the child is gone then; the caller re-sends the rest)."""
        child = self._live_child()
        pending: tuple[Request, protocol.Arena, float, float, float | None] | None = None

        def send(request: Request) -> tuple[Request, protocol.Arena, float, float, float | None]:
            timeout, total_s = self._within_total(request.timeout)
            deadline = time.monotonic() + timeout
            arena = child.send(request.message, request.blobs, deadline=deadline, timeout=timeout,
                               what=request.what, total_s=total_s)
            return request, arena, deadline, timeout, total_s

        queue = list(requests)
        try:
            pending = send(queue.pop(0))
            while pending is not None:
                request, arena, deadline, timeout, total_s = pending
                pending = None
                answer = child.receive(arena, deadline=deadline, timeout=timeout, what=request.what, total_s=total_s)
                if queue:
                    pending = send(queue.pop(0))
                yield answer
        finally:
            if pending is not None:
                pending[1].close()

    def _within_total(self, timeout: float) -> tuple[float, float | None]:
        """(the timeout to wait, the total limit when it is what is left of it that decides)."""
        remaining = self.remaining()
        total = self.limits.total_timeout_s
        if remaining <= 0:
            if self.child is not None:
                self.child.end()  # it may be in the middle of a request we no longer wait for
            raise WorkerLost(f"total time limit {total:g} s for the whole submission used up", limit="total_time")
        return (timeout, None) if timeout <= remaining else (remaining, total)

    def _live_child(self) -> Child:
        if self.child is None or self.child.exit_info is not None:
            self.restart()
        assert self.child is not None
        return self.child

    def limit_notes(self) -> str:
        """Limits the current child has run into (for a call that raised, e.g. "can't start new thread")."""
        child = self.child
        if child is None or child.cgroup is None:
            return ""
        notes = []
        if child.cgroup.pids_exhausted():
            notes.append(f"limit of {self.limits.max_processes} processes/threads reached")
        if child.cgroup.memory_exceeded():
            notes.append(f"memory limit {self.limits.memory_mb} MiB reached")
        return f" [{'; '.join(notes)}]" if notes else ""

    def restart(self) -> None:
        self.close()
        self.restarts += 1
        result = self.load()
        if not result.ok:
            raise WorkerLost("your code failed to load again on a fresh worker")

    def close(self) -> None:
        if self.child is not None:
            self.child.end()
            self.child = None


class WorkerPool:
    """Keeps `size` sandboxed templates warm. `grade()` may run in up to `size` threads at once."""

    def __init__(self, *, size: int = 1, unsafe: bool = False, tmp_size_mb: int = 64,
                 fork_ahead: bool = True) -> None:
        """`fork_ahead`: keep a child forked and warmed before each submission arrives (a server); a one-shot
        pool (the CLI) forks on demand instead."""
        if size < 1:
            raise ValueError("a pool needs at least one worker template")
        self.requested_size = size
        self.size = size
        self.unsafe = unsafe
        self.tmp_size_mb = tmp_size_mb
        self.fork_ahead = fork_ahead
        self._idle: queue.Queue[Zygote] = queue.Queue()
        self._all: list[Zygote] = []
        self._lock = threading.Lock()
        self._cgroup: Cgroup | None = None
        self._bwrap: str | None = None
        self._counter = 0
        self._closed = False
        self._spawner = Spawner()
        self._recycler = ThreadPoolExecutor(max_workers=size, thread_name_prefix="paperlab-recycler")
        self.started = False

    @property
    def sandbox(self) -> Literal["bubblewrap", "none"]:
        return "none" if self.unsafe else "bubblewrap"

    def start(self) -> WorkerPool:
        if self.started:
            return self
        # The judge's tensors are tiny and it grades several submissions at once beside their sandboxes: torch's
        # intra-op threads cost more than they give (a 32 x 32 softmax took ~10 ms with them on 2 busy cores,
        # 0.05 ms without), so this process computes on one thread, like the workers.
        torch.set_num_threads(1)
        if not self.unsafe:
            status = probe()
            if not status.available:
                raise SandboxUnavailable(status.reason)
            self._bwrap = status.bwrap
            remove_stale_cgroups()
            try:
                self._cgroup = create_root_cgroup()
            except CgroupError as exc:
                raise SandboxUnavailable(str(exc)) from None
        self.size = templates_that_fit(self.requested_size, child_memory_mb=Limits().memory_mb,
                                       available_mb=available_memory_mb())
        if self.size < self.requested_size:
            log.warning("only %d of %d warm sandboxes fit in this machine's memory; grading %d at a time",
                        self.size, self.requested_size, self.size)
        errors: list[BaseException] = []

        def start_one() -> None:
            try:
                zygote = self._new_zygote()
                if self.fork_ahead:
                    zygote.prepare(Limits())
                self._idle.put(zygote)
            except BaseException as exc:  # noqa: B902 - reported to the caller below
                errors.append(exc)

        threads = [threading.Thread(target=start_one) for _ in range(self.size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.started = True
        if errors:
            self.close()
            raise errors[0]
        return self

    def _new_zygote(self) -> Zygote:
        with self._lock:
            self._counter += 1
            name = f"z{self._counter}"
        zygote = Zygote(name=name, cgroup=self._cgroup, bwrap=self._bwrap, tmp_size_mb=self.tmp_size_mb,
                        spawner=self._spawner)
        zygote.start()
        with self._lock:
            self._all.append(zygote)
        return zygote

    def _replace(self, dead: Zygote) -> Zygote:
        log.warning("worker template %s died; starting a new one", dead.name)
        dead.close()
        with self._lock:
            if dead in self._all:
                self._all.remove(dead)
        return self._new_zygote()

    @contextlib.contextmanager
    def session(self, code: str, limits: Limits, *, seed: int = 0, wait_s: float = ZYGOTE_START_TIMEOUT_S,
                modules: dict[str, str] | None = None, banned_calls: Sequence[str] = ()) -> Iterator[WorkerSession]:
        """A submission's session. `modules`: sources loaded as modules beside it (a problem's helpers.py);
        `banned_calls`: dotted names of library functions replaced, before it loads, by one that refuses."""
        if not self.started:
            self.start()
        try:
            zygote = self._idle.get(timeout=wait_s)
        except queue.Empty:
            raise SandboxUnavailable(f"no worker became free within {wait_s:g} s") from None
        session = WorkerSession(pool=self, zygote=zygote, code=code, limits=limits, seed=seed,
                                modules=dict(modules or {}), banned_calls=tuple(banned_calls))
        try:
            yield session
        finally:
            self._recycler.submit(self._recycle, session)

    def _recycle(self, session: WorkerSession) -> None:
        """After a submission, off its critical path: kill the child's tree, fork the next child ahead of
        demand, and hand the template back (or replace it if the submission killed it)."""
        session.close()
        zygote = session.zygote
        if self._closed:
            zygote.close()
        elif zygote.alive():
            if self.fork_ahead:
                zygote.prepare(session.limits)
            self._idle.put(zygote)
        else:
            self._restart_into_idle(zygote)

    def _restart_into_idle(self, dead: Zygote) -> None:
        while not self._closed:
            try:
                self._idle.put(self._replace(dead))
                return
            except (SandboxUnavailable, OSError, CgroupError) as exc:
                log.error("could not restart a worker template: %s", exc)
                time.sleep(1.0)

    def memory_report(self) -> dict[str, int]:
        with self._lock:
            return {zygote.name: zygote.rss_kb() for zygote in self._all}

    def close(self) -> None:
        self._closed = True
        self._recycler.shutdown(wait=True)
        with self._lock:
            zygotes = list(self._all)
            self._all.clear()
        for zygote in zygotes:
            zygote.close()
        if self._cgroup is not None:
            self._cgroup.kill_all()
            self._cgroup.remove()
        self._spawner.stop()

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
