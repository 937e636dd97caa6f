"""Starting a template's process: the part of grader.template that needs no torch.

A template's process imports torch itself, inside its sandbox, which takes a second or two. The CLI starts it
first (`start_early`) and imports the judge (torch included) while it warms up, so a cold `grader grade` pays for
one import of torch, not two in a row. Nothing here, or in what it imports, may import torch: a test holds that.
"""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from grader.cgroups import CgroupError
from grader.limits import Limits
from grader.sandbox import (
    ALLOCATOR_ENV,
    Cgroup,
    SandboxStatus,
    SandboxUnavailable,
    bwrap_command,
    create_root_cgroup,
    find_bwrap,
    open_worker_files,
    probe,
    remove_stale_cgroups,
    worker_argv,
)

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


def cgroup_memory(limits: Limits) -> int:
    """The memory cap of one child's cgroup under `limits`."""
    return limits.memory_mb * 1024 * 1024 + CGROUP_SLACK_BYTES


def template_tree_memory(limits: Limits, *, tmp_size_mb: int) -> int:
    """The memory cap of a template's whole tree: the template, one child at its own cap, and the sandbox's tmpfs
    (/tmp, /dev/shm), whose pages a child leaves charged to the tree until the template wipes them before the
    next fork. Nothing else may be left by a child (IPC is refused by seccomp), so a tree never needs more; the
    cap bounds what an unknown leak could pin."""
    return TEMPLATE_MEMORY_BYTES + cgroup_memory(limits) + tmp_size_mb * 1024 * 1024 + SHM_TMPFS_BYTES


@dataclass
class Launched:
    """A template's process, started and not yet known to be ready (its TemplateReady is still to come)."""

    name: str
    tmp_size_mb: int
    process: subprocess.Popen[bytes]
    control: socket.socket
    stderr: StderrTail
    workdir: tempfile.TemporaryDirectory[str]
    cgroup: Cgroup | None = None  # the template's tree
    process_cgroup: Cgroup | None = None  # the template's own process, a leaf of that tree
    tree_memory_bytes: int = 0


def launch(name: str, *, root_cgroup: Cgroup | None, bwrap: str | None, tmp_size_mb: int,
           spawner: Spawner, warm_optimisers: bool = True) -> Launched:
    """Start `python worker.py template FD` (under bubblewrap and in its own cgroup tree when `bwrap` is set)
    and return at once; the caller waits for its TemplateReady. `warm_optimisers`: see grader.sandbox.worker_argv."""
    stderr = StderrTail(name)
    workdir = tempfile.TemporaryDirectory(prefix="paperlab-worker-")  # cwd of unsandboxed workers
    host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    argv = worker_argv(worker_end.fileno(), sandboxed=bwrap is not None, warm_optimisers=warm_optimisers)
    worker_files: dict[str, int] = {}
    cgroup = process_cgroup = None
    tree_memory = 0
    if bwrap is not None:
        assert root_cgroup is not None
        cgroup = root_cgroup.child(name, leaf=False)
        tree_memory = template_tree_memory(Limits(), tmp_size_mb=tmp_size_mb)
        cgroup.limit(max_pids=TEMPLATE_PIDS, memory_bytes=tree_memory)  # pids and memory caps of the whole tree
        process_cgroup = cgroup.child("template", leaf=True)
        join = "; ".join(f"echo $$ > {path}/cgroup.procs" for path in process_cgroup.paths.values())
        worker_files = open_worker_files()
        command = ["/bin/sh", "-c", f'set -e; {join}; exec "$0" "$@"',
                   *bwrap_command(bwrap, tmp_size_mb=tmp_size_mb, argv=argv, worker_files=worker_files)]
        env = {"PATH": "/usr/bin:/bin"}
    else:
        command = argv
        env = {"PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir(), "OMP_NUM_THREADS": "1", **ALLOCATOR_ENV}
    try:
        process = spawner.run(lambda: subprocess.Popen(
            command, pass_fds=(worker_end.fileno(), *worker_files.values()), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=stderr.write_end, env=env, start_new_session=True, close_fds=True,
            cwd="/" if bwrap is not None else workdir.name,
        ))
    except BaseException:
        host_end.close()
        if cgroup is not None:
            cgroup.remove()
        workdir.cleanup()
        raise
    finally:
        stderr.close_write_end()
        worker_end.close()
        for descriptor in worker_files.values():
            os.close(descriptor)
    return Launched(name=name, tmp_size_mb=tmp_size_mb, process=process, control=host_end, stderr=stderr,
                    workdir=workdir, cgroup=cgroup, process_cgroup=process_cgroup, tree_memory_bytes=tree_memory)


@dataclass
class EarlyStart:
    """A sandboxed pool's first template, started before the judge's imports (WorkerPool(early=...) adopts it).

    `status`: the sandbox probe, run beside the judge's imports rather than before the launch (it starts a
    bubblewrap of its own, 0.15 s on a cold CLI's critical path). The pool reads it before adopting the template:
    where the probe fails, the template is stopped and the pool reports the probe's reason, as it would have."""

    bwrap: str
    cgroup: Cgroup
    spawner: Spawner
    launched: Launched
    status: Future[SandboxStatus]
    adopted: bool = False  # a pool took it over (and with it, stopping it)

    def close(self) -> None:
        """Stop the template and its spawner unless a pool adopted them (the pool then stops both)."""
        if not self.adopted:
            self.adopted = True  # once
            self.launched.process.kill()
            self.launched.process.wait()
            self.launched.control.close()
            self.launched.workdir.cleanup()
            self.cgroup.kill_all()
            self.cgroup.remove()
            self.spawner.stop()


def start_early(*, tmp_size_mb: int = 64, warm_optimisers: bool = True) -> EarlyStart | None:
    """Start one sandboxed template now, or None where the sandbox cannot start (the pool then starts as usual
    and reports why). The pool that adopts it must be made with the same `warm_optimisers`."""
    try:
        bwrap = find_bwrap()
    except SandboxUnavailable:
        return None
    remove_stale_cgroups()
    try:
        cgroup = create_root_cgroup()
    except CgroupError:
        return None
    spawner = Spawner()
    try:
        launched = launch("t1", root_cgroup=cgroup, bwrap=bwrap, tmp_size_mb=tmp_size_mb, spawner=spawner,
                          warm_optimisers=warm_optimisers)
    except (OSError, CgroupError):
        spawner.stop()
        cgroup.kill_all()
        cgroup.remove()
        return None
    status: Future[SandboxStatus] = Future()
    threading.Thread(target=_probe_into, args=(status,), name="paperlab-probe", daemon=True).start()
    return EarlyStart(bwrap=bwrap, cgroup=cgroup, spawner=spawner, launched=launched, status=status)


def _probe_into(status: Future[SandboxStatus]) -> None:
    try:
        status.set_result(probe())
    except BaseException as exc:  # noqa: B902 - handed to the pool, which reports it
        status.set_exception(exc)
