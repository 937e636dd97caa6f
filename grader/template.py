"""A warm template: one sandboxed process that has imported and warmed up torch, and forks one fresh,
single-use child per submission.

Why: importing torch in a fresh sandboxed interpreter costs about a second; forking a warmed template costs
about ten milliseconds (measured on a 2-core machine). A template serves one child at a time, so children
never share a /tmp, and each child runs in its own cgroup that is killed whole when the child is done.

The template is started under bubblewrap (grader.sandbox) from one long-lived thread (`Spawner`), speaks on a
control socket (grader.messages: ForkRequest; TemplateReady, Forked, ChildExited), and reports its stderr
through a pipe (`StderrTail`). It is `python worker.py template FD ...` (grader/worker.py, `template()`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from grader import protocol
from grader.calls import WorkerLost
from grader.child import Child, ExitInfo
from grader.limits import Limits
from grader.messages import ChildExited, ControlMessage, Forked, ForkRequest, TemplateReady
from grader.sandbox import Cgroup, SandboxUnavailable, bwrap_command, host_pid_of, open_worker_files, worker_argv

log = logging.getLogger(__name__)
Message = TypeVar("Message", bound=ControlMessage)

TEMPLATE_START_TIMEOUT_S = 120.0  # importing torch takes ~1.5 s; a loaded machine at a deadline may need far more
CONTROL_TIMEOUT_S = 10.0
TEMPLATE_PIDS = 4096  # bound on a template's whole tree; each child's own cap is Limits.max_processes
CGROUP_SLACK_BYTES = 64 * 1024 * 1024  # allocator and kernel overhead beyond what RLIMIT_DATA lets Python have
# The template's own share of its tree's memory cap. Measured (cgroup v1, torch 2.x): its cgroup's peak charge is
# ~220 MB and its RSS ~315 MB (library pages first read by another process are charged there). 512 MB leaves
# room for a cold page cache, which the kernel reclaims before it would kill anything at the cap.
TEMPLATE_MEMORY_BYTES = 512 * 1024 * 1024
SHM_TMPFS_BYTES = 1024 * 1024  # the sandbox's /dev/shm (sandbox.bwrap_command)
STDERR_TAIL_BYTES = 8192  # what is kept of a template's stderr, for the message when it fails to start


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


class Template:
    """One sandboxed template process and the single child it may have at a time."""

    def __init__(self, *, name: str, cgroup: Cgroup | None, bwrap: str | None, tmp_size_mb: int,
                 spawner: Spawner) -> None:
        self.name = name
        self.spawner = spawner
        self.root_cgroup = cgroup
        self.bwrap = bwrap
        self.tmp_size_mb = tmp_size_mb
        self.cgroup: Cgroup | None = None
        self.process_cgroup: Cgroup | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.control: socket.socket | None = None
        self.jobs = 0
        self.ready: Child | None = None  # a child forked ahead of demand, waiting for its submission
        self.tree_memory_bytes = 0  # the memory cap of this template's cgroup tree, raised to fit each child
        self._stderr = StderrTail(name)
        self._workdir = tempfile.TemporaryDirectory(prefix="paperlab-worker-")  # cwd of unsandboxed workers

    @property
    def sandboxed(self) -> bool:
        return self.bwrap is not None

    def start(self, timeout: float = TEMPLATE_START_TIMEOUT_S) -> None:
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = worker_argv(worker_end.fileno(), sandboxed=self.sandboxed)
        worker_files: dict[str, int] = {}
        if self.sandboxed:
            assert self.root_cgroup is not None and self.bwrap is not None
            self.cgroup = self.root_cgroup.child(self.name, leaf=False)
            self._fit_tree_memory(Limits())  # pids and memory caps of the whole tree
            self.process_cgroup = self.cgroup.child("template", leaf=True)
            join = "; ".join(f"echo $$ > {path}/cgroup.procs" for path in self.process_cgroup.paths.values())
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
            self._receive(timeout, TemplateReady)
        except WorkerLost as exc:
            tail = self._stderr.tail(wait_s=1.0)
            self.close()
            raise SandboxUnavailable(f"the worker template did not start: {exc.reason}; {tail}") from None

    def stderr_tail(self) -> str:
        """The end of what the template wrote on stderr (it writes only when something went wrong)."""
        return self._stderr.tail()

    def _fit_tree_memory(self, limits: Limits) -> None:
        """Raise the tree's memory cap to fit a child under `limits` (never lower it under a running tree)."""
        needed = template_tree_memory(limits, tmp_size_mb=self.tmp_size_mb)
        if self.cgroup is not None and needed > self.tree_memory_bytes:
            self.cgroup.limit(max_pids=TEMPLATE_PIDS, memory_bytes=needed)
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
        if job_cgroup is not None and self.process_cgroup is not None:
            found = host_pid_of(self.process_cgroup, pid)
            if found is None:
                raise WorkerLost("could not find the new worker process on the host")
            host_pid = found
            job_cgroup.add(host_pid)
        return Child(template=self, sock=host_end, host_pid=host_pid, cgroup=job_cgroup, limits=limits)

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
        pids = self.process_cgroup.pids() if self.process_cgroup else [self.process.pid]
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
