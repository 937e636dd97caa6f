"""A warm template: one sandboxed process that has imported and warmed up torch, and forks one fresh,
single-use child per submission.

Why: importing torch in a fresh sandboxed interpreter costs about a second; forking a warmed template costs
about ten milliseconds (measured on a 2-core machine). A template serves one child at a time, so children
never share a /tmp, and each child runs in its own cgroup that is killed whole when the child is done.

The template's process is started by grader.launch (under bubblewrap, from one long-lived thread), speaks on a
control socket (grader.messages: ForkRequest; TemplateReady, Forked, ChildExited), and reports its stderr
through a pipe (`StderrTail`). It is `python worker.py template FD ...` (grader/sandboxed/worker.py, which runs
grader/sandboxed/template_server.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import tempfile
from typing import TypeVar

from grader import protocol
from grader.calls import WorkerLost
from grader.child import Child, ExitInfo
from grader.launch import (
    TEMPLATE_PIDS,
    Launched,
    Spawner,
    StderrTail,
    cgroup_memory,
    launch,
    template_tree_memory,
)
from grader.limits import Limits
from grader.messages import ChildExited, ControlMessage, Forked, ForkRequest, TemplateReady
from grader.placement import CpuPlacement, pin
from grader.sandbox import Cgroup, SandboxUnavailable, host_pid_of

log = logging.getLogger(__name__)
Message = TypeVar("Message", bound=ControlMessage)

TEMPLATE_START_TIMEOUT_S = 120.0  # importing torch takes ~1.5 s; a loaded machine at a deadline may need far more
CONTROL_TIMEOUT_S = 10.0


class Template:
    """One sandboxed template process and the single child it may have at a time."""

    def __init__(self, *, name: str, cgroup: Cgroup | None, bwrap: str | None, tmp_size_mb: int,
                 spawner: Spawner, placement: CpuPlacement | None = None, warm_optimisers: bool = True) -> None:
        self.name = name
        self.warm_optimisers = warm_optimisers  # the template's warm-up (grader.sandbox.worker_argv)
        self.placement = placement  # which CPU each child taken for a submission runs on (None: the kernel's choice)
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
        self._stderr: StderrTail | None = None  # the process's, once started (launch)
        self._workdir: tempfile.TemporaryDirectory[str] | None = None  # cwd of an unsandboxed process

    @property
    def sandboxed(self) -> bool:
        return self.bwrap is not None

    def start(self, timeout: float = TEMPLATE_START_TIMEOUT_S) -> None:
        self.adopt(launch(self.name, root_cgroup=self.root_cgroup, bwrap=self.bwrap, tmp_size_mb=self.tmp_size_mb,
                          spawner=self.spawner, warm_optimisers=self.warm_optimisers), timeout)

    def adopt(self, launched: Launched, timeout: float = TEMPLATE_START_TIMEOUT_S) -> None:
        """Take over a process `launch` started (perhaps while the judge was still importing) and wait until it
        is ready."""
        self._stderr, self._workdir = launched.stderr, launched.workdir
        self.process, self.control = launched.process, launched.control
        self.cgroup, self.process_cgroup = launched.cgroup, launched.process_cgroup
        self.tree_memory_bytes = launched.tree_memory_bytes
        try:
            self._receive(timeout, TemplateReady)
        except WorkerLost as exc:
            tail = launched.stderr.tail(wait_s=1.0)
            self.close()
            raise SandboxUnavailable(f"the worker template did not start: {exc.reason}; {tail}") from None

    def stderr_tail(self) -> str:
        """The end of what the template wrote on stderr (it writes only when something went wrong)."""
        return self._stderr.tail() if self._stderr is not None else "(not started)"

    def _fit_tree_memory(self, limits: Limits) -> None:
        """Raise the tree's memory cap to fit a child under `limits` (never lower it under a running tree)."""
        needed = template_tree_memory(limits, tmp_size_mb=self.tmp_size_mb)
        if self.cgroup is not None and needed > self.tree_memory_bytes:
            self.cgroup.limit(max_pids=TEMPLATE_PIDS, memory_bytes=needed)
            self.tree_memory_bytes = needed

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exits_within(self, seconds: float) -> bool:
        """Whether the template's process has ended or ends within `seconds`. A template that dies takes its
        children with it at once, but bubblewrap, the process this side watches, exits a moment later: a child
        lost in that moment was lost to its template's death, whatever `alive()` said."""
        if self.process is None:
            return True
        try:
            self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

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
        """The child forked ahead of demand if there is one (re-capped for this problem), else a new one; placed
        on the least busy CPU (grader.placement) before its submission arrives."""
        child, self.ready = self.ready, None
        if child is None:
            child = self.fork(limits)
        else:
            child.limits = limits
            if child.cgroup is not None:
                self._fit_tree_memory(limits)
                child.cgroup.limit(max_pids=limits.max_processes, memory_bytes=cgroup_memory(limits))
        if self.placement is not None:
            child.slot = self.placement.take()
            if child.slot is not None and not pin(child.host_pid, child.slot.cpu):
                child.slot.release()
                child.slot = None
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
            job_cgroup.limit(max_pids=limits.max_processes, memory_bytes=cgroup_memory(limits))
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
        if self._workdir is not None:
            self._workdir.cleanup()
