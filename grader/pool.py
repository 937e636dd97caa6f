"""The pool: `size` warm templates (grader.template), each lent to one submission's session at a time
(grader.session), sized to the machine's memory, recycled off the critical path after each submission.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Literal

import torch

from grader.cancel import CancelToken, OnCall
from grader.launch import EarlyStart, Launched, Spawner
from grader.limits import Limits
from grader.placement import CpuPlacement
from grader.sandbox import Cgroup, CgroupError, SandboxUnavailable, create_root_cgroup, probe, remove_stale_cgroups
from grader.session import WorkerSession
from grader.template import TEMPLATE_START_TIMEOUT_S, Template

log = logging.getLogger(__name__)

TEMPLATE_RSS_MB = 350  # a warm template after importing torch and warming it up (measured ~310 MB, see bench)
MEMORY_BUDGET_SHARE = 0.8  # of the memory available when the pool starts
CANCEL_POLL_S = 0.25  # how often a stopped grading still waiting for a free template notices


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


class WorkerPool:
    """Keeps `size` sandboxed templates warm. `grade()` may run in up to `size` threads at once."""

    def __init__(self, *, size: int = 1, unsafe: bool = False, tmp_size_mb: int = 64,
                 fork_ahead: bool = True, early: EarlyStart | None = None,
                 placement: CpuPlacement | None = None, warm_optimisers: bool = True) -> None:
        """`fork_ahead`: keep a child forked and warmed before each submission arrives (a server); a one-shot
        pool (the CLI) forks on demand instead. `early`: a sandboxed template grader.launch.start_early started
        before this process imported torch; the pool adopts it as its first template. `placement`: the CPUs
        children are pinned to (default: every CPU this process may use, shared with the machine's other judges).
        `warm_optimisers`: each template's warm-up builds an optimiser, importing torch._dynamo (0.7 s) once for
        all its children; the CLI's one-grading pool does only for code that names a way into it (grader.warm_up)."""
        if size < 1:
            raise ValueError("a pool needs at least one worker template")
        self.requested_size = size
        self.size = size
        self.unsafe = unsafe
        self.tmp_size_mb = tmp_size_mb
        self.fork_ahead = fork_ahead
        self.warm_optimisers = warm_optimisers
        self._idle: queue.Queue[Template] = queue.Queue()
        self._all: list[Template] = []
        self._lock = threading.Lock()
        self._cgroup: Cgroup | None = None
        self._bwrap: str | None = None
        self._counter = 0
        self._closed = False
        self._early = early if early is not None and not unsafe else None
        self._spawner = self._early.spawner if self._early is not None else Spawner()
        self._recycler = ThreadPoolExecutor(max_workers=size, thread_name_prefix="paperlab-recycler")
        self._recycling: set[Future[None]] = set()
        self.placement = placement if placement is not None else CpuPlacement()
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
        if self._early is not None:
            status = self._early.status.result()
            if not status.available:
                self._early.close()
                self._early = None
                raise SandboxUnavailable(status.reason)
            self._bwrap, self._cgroup = self._early.bwrap, self._early.cgroup  # created by start_early
        elif not self.unsafe:
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

        started_early = [self._early.launched] if self._early is not None else []
        if self._early is not None:
            self._early.adopted = True  # by the first thread below; closing the pool now stops it
            self._early = None

        def start_one() -> None:
            try:
                with self._lock:
                    launched = started_early.pop() if started_early else None
                template = self._new_template(launched)
                if self.fork_ahead:
                    template.prepare(Limits())
                self._idle.put(template)
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

    def _new_template(self, launched: Launched | None = None) -> Template:
        """A ready template: `launched`, a process already started for it, else a new one."""
        with self._lock:
            self._counter += 1
            name = launched.name if launched is not None else f"t{self._counter}"
        template = Template(name=name, cgroup=self._cgroup, bwrap=self._bwrap,
                            tmp_size_mb=self.tmp_size_mb if launched is None else launched.tmp_size_mb,
                            spawner=self._spawner, placement=self.placement, warm_optimisers=self.warm_optimisers)
        if launched is not None:
            template.adopt(launched)
        else:
            template.start()
        with self._lock:
            self._all.append(template)
        return template

    def replace(self, dead: Template) -> Template:
        """A new template in place of `dead` (a session whose template died gets one at once)."""
        log.warning("worker template %s died; starting a new one", dead.name)
        dead.close()
        with self._lock:
            if dead in self._all:
                self._all.remove(dead)
        return self._new_template()

    @contextlib.contextmanager
    def session(self, code: str, limits: Limits, *, seed: int = 0, wait_s: float = TEMPLATE_START_TIMEOUT_S,
                modules: dict[str, str] | None = None, banned_calls: Sequence[str] = (),
                cancel: CancelToken | None = None, on_call: OnCall | None = None) -> Iterator[WorkerSession]:
        """A submission's session. `modules`: sources loaded as modules beside it (a problem's helpers.py);
        `banned_calls`: dotted names of library functions replaced, before it loads, by one that refuses;
        `cancel`: stops every wait of the session, for a template included; `on_call`: told when each request
        is sent (grader.cancel.CallStarted) and when none is waiting."""
        if not self.started:
            self.start()
        template = self._take_template(wait_s, cancel)
        session = WorkerSession(pool=self, template=template, code=code, limits=limits, seed=seed,
                                modules=dict(modules or {}), banned_calls=tuple(banned_calls), cancel=cancel,
                                on_call=on_call)
        try:
            yield session
        finally:
            recycling = self._recycler.submit(self._recycle, session)
            with self._lock:
                self._recycling.add(recycling)
            recycling.add_done_callback(self._recycled)

    def _recycled(self, recycling: Future[None]) -> None:
        with self._lock:
            self._recycling.discard(recycling)

    def wait_recycled(self, timeout_s: float) -> bool:
        """Wait until every ended session's template is back: its child's tree reaped and, with `fork_ahead`, the
        next child forked. True if they all are. For a measurement that must count a grading's whole cost."""
        with self._lock:
            pending = list(self._recycling)
        return not wait_futures(pending, timeout=timeout_s).not_done

    def _take_template(self, wait_s: float, cancel: CancelToken | None) -> Template:
        deadline = time.monotonic() + wait_s
        while True:
            if cancel is not None:
                cancel.raise_if_cancelled()
            left = deadline - time.monotonic()
            try:  # in slices, so a stop while every template is busy is seen within a quarter of a second
                return self._idle.get(timeout=max(0.0, min(left, CANCEL_POLL_S if cancel is not None else left)))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise SandboxUnavailable(f"no worker became free within {wait_s:g} s") from None

    def _recycle(self, session: WorkerSession) -> None:
        """After a submission, off its critical path: kill the child's tree, fork the next child ahead of
        demand, and hand the template back (or replace it if the submission killed it)."""
        session.close()
        template = session.template
        if self._closed:
            template.close()
        elif template.alive():
            if self.fork_ahead:
                template.prepare(session.limits)
            self._idle.put(template)
        else:
            self._restart_into_idle(template)

    def _restart_into_idle(self, dead: Template) -> None:
        while not self._closed:
            try:
                self._idle.put(self.replace(dead))
                return
            except (SandboxUnavailable, OSError, CgroupError) as exc:
                log.error("could not restart a worker template: %s", exc)
                time.sleep(1.0)

    def memory_report(self) -> dict[str, int]:
        with self._lock:
            return {template.name: template.rss_kb() for template in self._all}

    def close(self) -> None:
        self._closed = True
        if self._early is not None:  # started early, never adopted: the pool was closed before it started
            self._early.close()
            self._early = None
        self._recycler.shutdown(wait=True)
        with self._lock:
            templates = list(self._all)
            self._all.clear()
        for template in templates:
            template.close()
        if self._cgroup is not None:
            self._cgroup.kill_all()
            self._cgroup.remove()
        self._spawner.stop()

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
