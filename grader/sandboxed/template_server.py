"""The warm template: imports and warms up torch once, then, for each `fork` request on its control socket (which
carries the job's socket as SCM_RIGHTS), forks a child that serves exactly one submission and is never reused
(child_loop.py). Between children it reaps their orphans, wipes what they left (wipe.py) and retires if a child
changed its limits."""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import signal
import socket
import threading
from typing import Any

import torch

from grader.sandboxed import child_loop, guard, rlimits, wipe

PR_SET_DUMPABLE = 4


def _set_undumpable() -> None:
    """Siblings (same uid inside the sandbox) cannot ptrace us or read our /proc/<pid>/mem."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _warm_up(*, optimisers: bool) -> None:
    """Run once in the template so each child starts with torch's lazy imports and kernels already loaded.

    `optimisers`: also build and step an optimiser. torch.optim's first use imports torch._dynamo (0.7 s, 73 MB),
    which a warm pool pays once for all its children: a submission that uses torch.optim then pays nothing in its
    calls. A one-grading template (`grader grade`) skips it unless the code names a way into it
    (grader/warm_up.py), and loads only the ctypes modules the stack needs, which a child may not import."""
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    _exercise_torch()
    if optimisers:
        _exercise_optimiser()
    else:
        for name in guard.CTYPES_FOR_DYNAMO:
            importlib.import_module(name)


def _exercise_torch() -> None:
    """The operations a grading uses: loading their code and kernels, or (in a fresh child) faulting in its
    copy-on-write pages."""
    import math  # noqa: F401

    import torch.nn.functional as F

    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    y = torch.randn(5, 3)
    for dtype in (torch.float32, torch.float64):
        q = F.normalize(x.to(dtype), dim=1)
        logits = torch.cat([(q * q).sum(1, keepdim=True), q @ y.to(dtype).T], dim=1) / 0.1
        loss = torch.logsumexp(logits, dim=1).mean() + F.cross_entropy(logits, torch.zeros(4, dtype=torch.long))
        loss = loss + torch.einsum("nc,kc->nk", q, y.to(dtype)).sum() + torch.log_softmax(logits, 1).sum()
        loss.backward()
    torch.lerp(y, y.roll(1, 0), 0.5).index_copy(0, torch.tensor([0]), y[:1]).to(torch.float16).to(torch.bfloat16)
    torch.linalg.vector_norm(y, dim=1).clamp_min(1e-12)
    torch.manual_seed(0)  # its first call sets up every device's generator (2.7 ms): a learner's call does not pay that


def _exercise_optimiser() -> None:
    parameter = torch.nn.Parameter(torch.randn(3, 3))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    (parameter.sum() ** 2).backward()
    optimizer.step()


def template(control_fd: int, *, sandboxed: bool, warm_optimisers: bool) -> None:
    """Control messages are single JSON datagrams on a SOCK_SEQPACKET socket; a fork request carries the
    job's stream socket as SCM_RIGHTS.

    Inside the sandbox this process is pid 1 (bwrap --as-pid-1): every orphan of a child's tree becomes ours to
    reap, and the kernel drops any signal from inside the sandbox that we have no handler for."""
    rlimits.PRISTINE.update(rlimits.current_limits())  # before anything else runs: what every child starts from
    if sandboxed:
        wipe.remember_modes()
    if sandboxed:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Python's KeyboardInterrupt handler would let SIGINT in
    control = socket.socket(fileno=control_fd)
    _warm_up(optimisers=warm_optimisers)
    aliases = guard.ctypes_aliases(ctypes)
    # Children's collections then leave the template's objects (and their shared pages) alone. No collection
    # first: after the imports and the warm-up it walked 280,000 objects to free 15 (0.13 s of a cold CLI).
    gc.freeze()
    _set_undumpable()
    if torch.get_num_threads() != 1 or threading.active_count() != 1:
        raise RuntimeError("the template must stay single-threaded: forking a threaded process deadlocks")
    _send_control(control, {"op": "ready"})
    while True:
        data, fds, _, _ = socket.recv_fds(control, 65536, 1)
        if not data:
            return
        request = json.loads(data)  # grader.messages.ForkRequest
        if type(request) is not dict or request["op"] != "fork" or len(fds) != 1:
            return
        _reap_orphans()
        if rlimits.current_limits() != rlimits.PRISTINE:
            os._exit(4)  # a template whose limits were changed must not serve again; the pool replaces it
        if sandboxed:
            wipe.wipe_tmp()  # the sandbox's private /tmp; outside a sandbox there is nothing of ours to wipe
        pid = os.fork()
        if pid == 0:
            try:
                control.close()
                child_loop.serve(fds[0], warm=request["ahead"] is True, ctypes_aliases=aliases)
            finally:
                os._exit(0)
        os.close(fds[0])
        _send_control(control, {"op": "forked", "pid": pid})
        status, usage = _wait_for(pid)
        _send_control(
            control,
            {
                "op": "exited",
                "exit_code": os.waitstatus_to_exitcode(status),
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "max_rss_kb": usage.ru_maxrss,
            },
        )


def _wait_for(child: int) -> tuple[int, Any]:
    """(status, rusage) of `child`, reaping on the way the orphans re-parented to us: an unreaped zombie keeps
    its pid charged to the job's cgroup, and, once that is gone, to the template's whole tree."""
    while True:
        pid, status, usage = os.wait4(-1, 0)
        if pid == child:
            return status, usage


def _reap_orphans() -> None:
    """Zombies of a finished child's tree that died after it (the host kills the whole job cgroup at once)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _send_control(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())
