"""The only code that runs inside the sandbox.

`python -I worker.py zygote FD` starts a template process: it imports and warms up torch once, then, for each
`fork` request on its control socket (which carries the job's socket as SCM_RIGHTS), forks a child that serves
exactly one submission and is never reused. The child loads the learner's code as a module and answers
`calls` requests: call F with these arguments, report what came back, what was raised, the gradients asked
for, which arguments changed in place and which arguments a result shares storage with.

It reports facts; it decides nothing. The judge outside holds the checks, the reference and the verdicts.
"""

from __future__ import annotations

import collections
import ctypes
import gc
import io
import json
import os
import random
import resource
import shutil
import signal
import socket
import sys
import threading
import time
import types
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
if len(sys.argv) > 4 and sys.argv[1] == "zygote":  # the virtualenv's site-packages, at their sandbox paths
    import site

    for _site_dir in sys.argv[4:]:
        site.addsitedir(_site_dir)

import protocol  # noqa: E402  (beside this file; grader.protocol outside the sandbox)
import seccomp  # noqa: E402
import torch  # noqa: E402

# Captured before any learner code exists, so monkeypatching torch cannot change what the worker reports.
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_equal = torch.equal
_clone = torch.Tensor.clone
_detach = torch.Tensor.detach
_backward = torch.Tensor.backward
_set = torch.Tensor.set_
_empty = torch.empty
_uint8 = torch.uint8
_storage = torch.Tensor.untyped_storage
_storage_ptr = torch.UntypedStorage.data_ptr
_storage_nbytes = torch.UntypedStorage.nbytes
_send_frame = protocol.send_frame
_recv_frame = protocol.recv_frame
_perf_counter = time.perf_counter
_isinstance = isinstance
_type = type

SUBMISSION_FILENAME = "submission.py"
PR_SET_DUMPABLE = 4


def _set_undumpable() -> None:
    """Siblings (same uid inside the sandbox) cannot ptrace us or read our /proc/<pid>/mem."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _warm_up() -> None:
    """Run once in the template so each child starts with torch's lazy imports and kernels already loaded."""
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    _exercise_torch()


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
    parameter = torch.nn.Parameter(torch.randn(3, 3))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    (parameter.sum() ** 2).backward()
    optimizer.step()
    torch.lerp(y, y.roll(1, 0), 0.5).index_copy(0, torch.tensor([0]), y[:1]).to(torch.float16).to(torch.bfloat16)
    torch.linalg.vector_norm(y, dim=1).clamp_min(1e-12)
    gc.collect()


# ------------------------------------------------------------------------------------------------- zygote


def zygote(control_fd: int, *, sandboxed: bool) -> None:
    """Control messages are single JSON datagrams on a SOCK_SEQPACKET socket; a fork request carries the
    job's stream socket as SCM_RIGHTS."""
    control = socket.socket(fileno=control_fd)
    _warm_up()
    gc.freeze()  # children's collections then leave the template's objects (and their shared pages) alone
    _set_undumpable()
    if torch.get_num_threads() != 1 or threading.active_count() != 1:
        raise RuntimeError("the template must stay single-threaded: forking a threaded process deadlocks")
    _send_control(control, {"op": "ready", "pid": os.getpid()})
    while True:
        data, fds, _, _ = socket.recv_fds(control, 65536, 1)
        if not data:
            return
        request = json.loads(data)
        if request.get("op") != "fork" or len(fds) != 1:
            return
        if sandboxed:
            _wipe_tmp()  # the sandbox's private /tmp; outside a sandbox there is nothing of ours to wipe
        pid = os.fork()
        if pid == 0:
            try:
                control.close()
                _child(fds[0], warm=bool(request.get("ahead")))
            finally:
                os._exit(0)
        os.close(fds[0])
        _send_control(control, {"op": "forked", "pid": pid})
        _, status, usage = os.wait4(pid, 0)
        _send_control(
            control,
            {
                "op": "exited",
                "pid": pid,
                "exit_code": os.waitstatus_to_exitcode(status),
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "max_rss_kb": usage.ru_maxrss,
            },
        )


def _send_control(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())


def _wipe_tmp() -> None:
    """Nothing a previous child wrote may reach the next one (the host killed that child's whole tree first)."""
    for directory in ("/tmp", "/dev/shm"):
        _empty_directory(directory)


def _empty_directory(directory: str) -> None:
    for name in os.listdir(directory) if os.path.isdir(directory) else []:
        path = os.path.join(directory, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                for root, dirs, _ in os.walk(path):
                    for d in dirs:
                        os.chmod(os.path.join(root, d), 0o700)
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            os._exit(3)  # a template that cannot clean up must not serve again; the pool replaces it


# -------------------------------------------------------------------------------------------------- child


class BoundedWriter(io.TextIOBase):
    """stdout/stderr for learner code: keeps the first `limit` characters, counts the rest, never grows."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:  # type: ignore[override]
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self) -> str:
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[... {self.dropped} more characters not shown: output limit {self.limit} characters]"
        self.parts, self.kept, self.dropped = [], 0, 0
        return text


def _apply_limits(limits: dict[str, Any]) -> None:
    def cap(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value if which != resource.RLIMIT_CPU else value + 1))

    vm_data_kb = 0
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                vm_data_kb = int(line.split()[1])
    cap(resource.RLIMIT_DATA, vm_data_kb * 1024 + int(limits["memory_mb"]) * 1024 * 1024)
    cap(resource.RLIMIT_CPU, int(limits["cpu_time_s"]))
    cap(resource.RLIMIT_FSIZE, int(limits["file_size_mb"]) * 1024 * 1024)
    cap(resource.RLIMIT_NOFILE, int(limits["open_files"]))
    cap(resource.RLIMIT_CORE, 0)
    try:
        cap(resource.RLIMIT_NPROC, int(limits["max_processes"]))  # effective only when not mapped to root
    except (ValueError, OSError):
        pass


def _child(job_fd: int, *, warm: bool) -> None:
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
    header, _ = _recv_frame(job, max_blob_bytes=0)  # "load": sent after the host has moved us into our cgroup
    limits = header["limits"]
    seed = int(header.get("seed", 0))
    torch.manual_seed(seed)
    random.seed(seed)
    _apply_limits(limits)
    template = os.getppid()
    seccomp.install([template, os.getpgid(template), 1])
    max_message = int(limits["message_mb"]) * 1024 * 1024
    output = BoundedWriter(int(limits["output_kb"]) * 1024)
    sys.stdout = sys.stderr = output  # type: ignore[assignment]
    module = types.ModuleType("submission")
    module.__file__ = SUBMISSION_FILENAME
    started = _perf_counter()
    try:
        _SOURCE[:] = header["code"].splitlines()
        code = compile(header["code"], SUBMISSION_FILENAME, "exec", dont_inherit=True)
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: B902 - SystemExit, KeyboardInterrupt and custom BaseExceptions too
        reply = {"op": "loaded", "ok": False, "raised": _exception_summary(exc), "output": output.take()}
        _send_frame(job, reply)
        return
    functions = sorted(name for name, value in vars(module).items() if callable(value) and not name.startswith("__"))
    _send_frame(
        job,
        {"op": "loaded", "ok": True, "functions": functions, "output": output.take(),
         "duration_ms": (_perf_counter() - started) * 1000},
    )
    while True:
        try:
            request, blobs = _recv_frame(job, max_blob_bytes=1 << 34)
        except EOFError:
            return
        if request.get("op") != "calls":
            return
        calls = request["calls"]
        groups = request.get("groups")  # calls of several checks: one reply per check, sent as soon as it is ready
        valid = _type(groups) is list and all(_type(n) is int and n >= 0 for n in groups)
        if not (valid and sum(groups) == len(calls)):
            groups = [len(calls)]
        position = 0
        for count in groups:
            replies: list[Any] = []
            reply_blobs: list[bytes] = []
            for call in calls[position : position + count]:
                replies.append(_serve_call(module, call, blobs, output, reply_blobs))
            position += count
            header_out: dict[str, Any] = {"op": "results", "results": replies}
            size = sum(len(blob) for blob in reply_blobs)
            if size > max_message:
                header_out = {"op": "too_large", "size": size}
                reply_blobs = []
            _send_frame(job, header_out, reply_blobs)


def _exercise_calls() -> None:
    """One round of the call-serving path on a stand-in function (decode, snapshot, call, backward, encode)."""
    module = types.ModuleType("warm_up")
    module.f = lambda x, y, t: (x * y).sum() / t  # type: ignore[attr-defined]
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    arguments, blobs = protocol.encode(((x, x.detach().T.contiguous().T, 0.5), {}))
    call = {"function": "f", "arguments": arguments, "grads": ["0"]}
    _serve_call(module, call, [bytearray(blob) for blob in blobs], BoundedWriter(100), [])


def _serve_call(
    module: types.ModuleType, call: dict[str, Any], blobs: list[bytearray], output: BoundedWriter,
    reply_blobs: list[bytes],
) -> dict[str, Any]:
    base = call.get("blob_base", 0)  # calls merged from several checks each number their blobs from here
    arguments = protocol.decode(call["arguments"], blobs[base:] if _type(base) is int and base > 0 else blobs)
    args, kwargs = arguments
    function = getattr(module, call["function"], None)
    reply: dict[str, Any] = {"value": None, "raised": None, "grads": {}, "mutated": [], "aliased": []}
    if not callable(function):
        reply["missing"] = True
        return reply
    named = [(str(i), v) for i, v in enumerate(args)] + list(kwargs.items())
    tensors = [(key, value) for key, value in named if _type(value) in (_Tensor, _Parameter)]
    # Snapshot each distinct storage's bytes (a strided view of a small storage stays cheap), plus each
    # argument's version counter and layout; any difference after the call means it was written in place.
    snapshots: dict[int, Any] = {}
    before = []
    for key, t in tensors:
        pointer = _storage_ptr(_storage(t))
        # Address 0 holds no bytes to compare: an empty storage, or a meta tensor's (which has none at all and
        # cannot be viewed as CPU bytes). Version counter, shape and strides still reveal in-place edits.
        if pointer not in snapshots and pointer != 0:
            snapshots[pointer] = _clone(_storage_bytes(t))
        before.append((key, t, pointer, t._version, tuple(t.shape), t.stride()))
    started = _perf_counter()
    try:
        value = function(*args, **kwargs)
    except BaseException as exc:  # noqa: B902 - the learner may raise anything, including SystemExit
        reply["raised"] = _exception_summary(exc)
        reply["duration_ms"] = (_perf_counter() - started) * 1000
        reply["output"] = output.take()
        return reply
    reply["duration_ms"] = (_perf_counter() - started) * 1000
    rewritten = {pointer for pointer, snapshot in snapshots.items()
                 if not _same_bytes(pointer, snapshot, tensors)}
    reply["mutated"] = [key for key, t, pointer, version, shape, stride in before
                        if t._version != version or tuple(t.shape) != shape or t.stride() != stride
                        or _storage_ptr(_storage(t)) != pointer or pointer in rewritten]
    reply["aliased"] = _aliased(value, tensors)
    encoder = protocol.Encoder(preserve_views=False)
    encoder.blobs = reply_blobs
    try:
        reply["value"] = encoder.encode(value)
    except protocol.ProtocolError as exc:
        reply["value"] = {"opaque": f"unencodable result ({exc})"}
    if call.get("grads"):
        reply["grads"], reply["backward_error"] = _gradients(value, call["grads"], dict(tensors), encoder)
    reply["output"] = output.take()
    return reply


def _storage_bytes(t: Any) -> Any:
    return _set(_empty(0, dtype=_uint8), _storage(t))


def _same_bytes(pointer: int, snapshot: Any, tensors: list[tuple[str, Any]]) -> bool:
    for _, t in tensors:
        if _storage_ptr(_storage(t)) == pointer:
            return bool(_equal(_storage_bytes(t), snapshot))
    return False


def _aliased(value: Any, tensors: list[tuple[str, Any]]) -> list[str]:
    """Argument keys whose storage overlaps the storage of any returned tensor."""
    ranges = []
    for _, t in tensors:
        storage = _storage(t)
        ranges.append((_storage_ptr(storage), _storage_ptr(storage) + _storage_nbytes(storage)))
    found: set[str] = set()
    for out in _tensors_in(value):
        storage = _storage(out)
        start = _storage_ptr(storage)
        end = start + _storage_nbytes(storage)
        for (key, arg), (a_start, a_end) in zip(tensors, ranges, strict=True):
            if out is arg or (start < a_end and a_start < end) or (start == a_start and start != 0):
                found.add(key)
    return sorted(found)


def _tensors_in(value: Any, depth: int = 0) -> list[Any]:
    if depth > 8:
        return []
    if _type(value) in (_Tensor, _Parameter):
        return [value]
    if _type(value) in (tuple, list):
        return [t for item in value for t in _tensors_in(item, depth + 1)]
    return []


def _gradients(
    value: Any, wanted: list[str], tensors: dict[str, Any], encoder: protocol.Encoder
) -> tuple[dict[str, Any], str | None]:
    error = None
    if _type(value) is _Tensor and value.requires_grad and value.numel() == 1:
        try:
            _backward(value)
        except BaseException as exc:  # noqa: B902
            error = _exception_summary(exc)["message"]
    grads: dict[str, Any] = {}
    for key in wanted:
        t = tensors.get(key)
        grad = None if t is None else t.grad
        grads[key] = None if grad is None else encoder.encode(grad)
    return grads, error


def _exception_summary(exc: BaseException) -> dict[str, Any]:
    # Walk the traceback by hand, keeping the last few frames of the submission: traceback.extract_tb looks up
    # a source line for every frame, which after a million-deep recursion takes longer than any time limit.
    last: collections.deque[tuple[int, str]] = collections.deque(maxlen=5)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SUBMISSION_FILENAME:
            last.append((tb.tb_lineno or 0, tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    frames = [[line, name, _source_line(line)] for line, name in last]
    if isinstance(exc, SyntaxError) and exc.filename == SUBMISSION_FILENAME:
        frames.append([exc.lineno or 0, "<module>", (exc.text or "").strip()[:200]])
    try:
        message = exc.msg if isinstance(exc, SyntaxError) and exc.msg else str(exc)
    except BaseException:  # noqa: B902 - a hostile __str__
        message = "<the exception's message could not be read>"
    mro = [getattr(k, "__name__", "?") for k in _type(exc).__mro__][:16]
    return {"type": _type(exc).__name__[:100], "mro": mro, "message": message[:2000], "traceback": frames[-5:]}


_SOURCE: list[str] = []  # the submission's lines, for tracebacks (it is compiled from a string, not a file)


def _source_line(number: int) -> str:
    return _SOURCE[number - 1].strip()[:200] if 0 < number <= len(_SOURCE) else ""


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "zygote" and sys.argv[3] in ("sandboxed", "unsandboxed"):
        zygote(int(sys.argv[2]), sandboxed=sys.argv[3] == "sandboxed")
        return
    print("usage: worker.py zygote FD sandboxed|unsandboxed [SITE_DIR ...]", file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    main()
