"""A child's life: forked by the template for one submission, it takes the judge's `load` request (the code, the
limits, the key its replies are signed with), closes what the learner's code must not reach, loads the
submission on the learner's thread, then answers `calls` requests until the judge hangs up. It is never reused."""

from __future__ import annotations

import _socket
import _thread
import ctypes
import faulthandler
import importlib
import os
import random
import signal
import socket
import sys
import types
from typing import Any

import torch

from grader import protocol
from grader.sandboxed import guard as guards
from grader.sandboxed import rlimits, seccomp, torch_state
from grader.sandboxed.learner_thread import CallOverran, LearnerThread, Output, learner_namespace
from grader.sandboxed.serving import SUBMISSION_FILENAME, Served

_send_frame = protocol.send_frame
_recv_frame: Any = protocol.recv_frame  # called with_fds=True only: (header, blobs, descriptors)
_recv_into = _socket.socket.recv_into
_get_ident = _thread.get_ident

# The deepest recursion a submission may ask for. Python frames live on the heap, so sys.setrecursionlimit(10**7)
# lets a runaway recursion grow until the memory limit, and unwinding millions of frames then holds the
# interpreter for seconds: the call outlived its limit by 10-15 s (bench row "deep recursion"). Under a cap each
# runaway call ends in RecursionError, and what it costs grows with the cap: a MoCo grading makes about 400 calls
# of a function that recursed without end, 5.6 s in all at 20,000 frames, 3.8 s at 10,000 (docs/engine.md).
# 10,000 is ten times Python's default (1,000) and deeper than any exercise needs.
MAX_RECURSION_LIMIT = 10_000


def _load_modules(sources: Any, runner: Any, loaded: dict[str, types.ModuleType]) -> tuple[bool, Any]:
    """The problem's own modules (helpers.py), importable by the submission and kept in `loaded` by name (a
    request may call their functions); they run on the learner's thread, like its code: the learner reads them
    in the page."""
    for name, source in (sources.items() if type(sources) is dict else ()):
        module = types.ModuleType(str(name))
        module.__file__ = f"{name}.py"
        ok, raised = runner(exec, (compile(str(source), f"{name}.py", "exec", dont_inherit=True), module.__dict__), {})
        if not ok:
            return False, raised
        sys.modules[str(name)] = loaded[str(name)] = module
    return True, None


def _ban(names: Any, namespace: dict[str, Any]) -> None:
    """Replace each dotted library name (module path, then attributes) by a function that refuses to run."""
    for name in names if type(names) is list else ():
        parts = str(name).split(".")
        for split in range(len(parts) - 1, 0, -1):
            try:
                owner: Any = importlib.import_module(".".join(parts[:split]))
            except ImportError:
                continue
            try:
                for attribute in parts[split:-1]:
                    owner = getattr(owner, attribute)
                setattr(owner, parts[-1], namespace["banned"](str(name)))
            except (AttributeError, TypeError):
                pass
            break


def _load_submission(code: str, runner: Any) -> tuple[types.ModuleType, bool, Any]:
    """(module, ok, exception or None): the submission's module code runs on the learner's thread too."""
    module = types.ModuleType("submission")
    module.__file__ = SUBMISSION_FILENAME
    try:
        compiled = compile(code, SUBMISSION_FILENAME, "exec", dont_inherit=True)
    except BaseException as exc:  # noqa: B902 - a SyntaxError, a MemoryError on a huge file
        return module, False, exc
    ok, raised = runner(exec, (compiled, module.__dict__), {})
    return module, ok, None if ok else raised


def serve(job_fd: int, *, warm: bool, ctypes_aliases: list[tuple[Any, str]]) -> None:
    """Serve one submission on `job_fd`, the job's socket; returns when the judge hangs up or the child can serve
    no more (the template then exits this process). `ctypes_aliases`: the template's guard.ctypes_aliases, closed
    with ctypes' own names."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    job = socket.socket(fileno=job_fd)
    # Children are forked ahead of demand. Touch what a grading touches while we wait: the copy-on-write faults
    # of a fresh fork (every object whose reference count changes gets its page copied) then happen here, off
    # the critical path of the submission, instead of during its first calls.
    if warm:
        _exercise_calls()  # light on purpose: under load this runs beside other gradings and costs throughput
    # What needs nothing of the load request is done before it comes, which for a child forked ahead is off the
    # critical path of the submission (2 ms of a load).
    parent = os.getppid()  # the template
    seccomp.install([parent, os.getpgid(parent), 1])
    namespace = learner_namespace()
    # "load": sent after the host has moved us into our cgroup, with the pipe our stacks go to when the judge
    # asks (SIGUSR1, before it kills a call that ran out of time: the verdict names the line that was running)
    header, _, fds = _recv_frame(job, max_blob_bytes=0, with_fds=True)
    if fds:
        faulthandler.register(signal.SIGUSR1, file=fds[0], all_threads=True, chain=False)
    key = bytes.fromhex(str(header["key"]))  # grader.messages.LoadRequest: every field is always sent
    limits = header["limits"]
    seed = int(header["seed"])
    # The CPU generator is the only one a child has. torch.manual_seed would also queue a seeding of each
    # accelerator for when it starts, each with a formatted stack: 3.5 ms of a fresh child's load, reading source.
    torch.default_generator.manual_seed(seed)
    random.seed(seed)
    # after seccomp (a filter binds the threads made after it), before the limits, so its stack counts in the
    # baseline and not against the learner's memory
    learner = LearnerThread(namespace)
    rlimits.apply_limits(limits, processes_capped=header["processes_capped"] is True)
    output = Output(namespace, int(limits["output_kb"]) * 1024)
    sys.stdout = sys.stderr = output.writer
    _ban(header["banned_calls"], namespace)
    # A courtesy: the plain route says at once why it is closed. Other routes (a Library object torch keeps for
    # its own registrations) stay open, and the torch state below is what catches them.
    torch._C._dispatch_library = namespace["guarded_library"](torch._C._dispatch_library,
                                                              torch_state.REFUSED_NAMESPACES)
    # Integer -> memory, by name (docs/engine.md, "Trust": what stays open, numpy's __array_interface__ first).
    # torch imports ctypes itself, so `torch.ctypes` and `numpy.ctypeslib.ctypes` hand the module over without an
    # import; its audited uses (string_at, from_address, dlopen) the guard refuses, and its unaudited ones are
    # replaced here. Its classes stay reachable through object.__subclasses__() (docs/engine.md, what remains).
    closing = [(torch._C, "_construct_storage_from_data_pointer"), (torch, "_from_blob"), *ctypes_aliases]
    for owner, name in closing + [(ctypes, name) for name in guards.CTYPES_CLOSED]:
        setattr(owner, name, namespace["closed"](f"{owner.__name__}.{name}"))
    sys.setrecursionlimit = namespace["capped_recursion_limit"](sys.setrecursionlimit, MAX_RECURSION_LIMIT)
    guard = guards.seal(_get_ident())
    pristine = torch_state.snapshot()
    served = Served(types.ModuleType("submission"), output, learner.run, learner.graveyard, guard,
                    elapsed=learner.last_call_s)
    ok, raised = _load_modules(header["modules"], learner.run, served.modules)
    module = types.ModuleType("submission")
    if ok:
        served.source = str(header["code"]).splitlines()
        module, ok, raised = _load_submission(str(header["code"]), learner.run)
    served.module = module
    changed = torch_state.changes(pristine, torch_state.snapshot())
    if changed:
        _send_frame(job, {"op": "tampered", "what": changed}, key=key)
        return
    if not ok:
        reply = {"op": "loaded", "ok": False, "functions": [], "raised": served.exception_summary(raised),
                 "output": output.take()}
        _send_frame(job, reply, key=key)
        return
    functions = sorted(name for name, value in list(module.__dict__.items())
                       if type(name) is str and callable(value) and not name.startswith("__"))
    _send_frame(job, {"op": "loaded", "ok": True, "functions": functions, "raised": None, "output": output.take()},
                key=key)
    max_message = int(limits["message_mb"]) * 1024 * 1024
    # This clock decides every call's time limit (it discounts waiting for a CPU); the judge's deadline is a
    # wall-clock ceiling past it, for a child that cannot answer at all.
    learner.call_timeout_s = float(limits["call_timeout_s"])
    learner.wall_ceiling_factor = float(limits["wall_ceiling_factor"])
    while True:
        try:
            request, _, fds = _recv_frame(job, max_blob_bytes=0, with_fds=True)
        except EOFError:
            return
        if request["op"] != "calls" or len(fds) > 1:  # grader.messages.CallsRequest
            return
        arena = request["arena"]
        if fds:
            blobs = protocol.map_arena(fds[0], arena["size"], arena["blobs"])
        else:
            blobs = protocol.blob_table(arena["blobs"], memoryview(bytearray()))
        try:
            reply, reply_blobs = served.calls(request, blobs, max_message)
            changed = torch_state.changes(pristine, torch_state.snapshot(pristine[0]))
        except protocol.ProtocolError as exc:  # a decoded argument that is not the judge's memory
            changed = str(exc)
        except CallOverran:
            # The learner's thread is still in the call and this child can serve no more: say so (signed), then
            # wait for the judge, which samples our stacks (the line that was running) and kills us.
            _send_frame(job, {"op": "call_timed_out"}, key=key)
            # The learner's thread still runs and may rebind socket.socket's methods: the captured C one only.
            while _recv_into(job, bytearray(1), 1):
                pass
            return
        except Exception:
            # The worker's own operations raised: a kernel the learner registered for one of them may be why, and
            # the verdict then names it rather than a worker that ended for no reason it can give.
            changed = torch_state.changes(pristine, torch_state.snapshot())
            if not changed:
                raise
        if changed:  # these replies were computed by a torch the learner changed: none of them is sent
            _send_frame(job, {"op": "tampered", "what": changed}, key=key)
            return
        _send_frame(job, reply, reply_blobs, key=key)


def _exercise_calls() -> None:
    """One round of the call-serving path on a stand-in function (decode, call, backward, encode, and the look at
    torch's state that follows a request)."""
    module = types.ModuleType("warm_up")
    module.f = lambda x, y, t: (x * y).sum() / t  # type: ignore[attr-defined]
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    arguments, blobs = protocol.encode(((x, x.detach().T.contiguous().T, 0.5), {}))
    call = {"function": "f", "arguments": arguments, "grads": ["0"], "grad_output": None, "module": "", "uses": [],
            "keep": False}
    namespace = learner_namespace()
    direct = lambda function, args, kwargs: (True, function(*args, **kwargs))  # noqa: E731
    served = Served(module, Output(namespace, 100), direct, [], None, arena_copies=True)
    served.call(call, [bytearray(blob) for blob in blobs], [])
    state = torch_state.snapshot()
    torch_state.changes(state, state)
