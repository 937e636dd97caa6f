"""Serving one call of the learner's function: decode its arguments from the judge's memory, call it on the
learner's thread, and report the facts (what came back, what was raised, the gradients asked for, which arguments
it changed and which a result shares storage with). Whether it wrote an argument's bytes is not reported: the
arguments live in memory the judge maps, and the judge looks for itself."""

from __future__ import annotations

import math
import time
import types
from collections.abc import Callable
from typing import Any

import torch

from grader import protocol
from grader.sandboxed.guard import Guard
from grader.sandboxed.learner_thread import Interfered, Output

# Captured before any learner code exists: C functions and descriptors that rebinding cannot reach.
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_list, _tuple, _int, _float, _bool, _str, _none, _repr = list, tuple, int, float, bool, str, type(None), repr
_PLAIN_ITEMS = 1_000_000  # the longest list of plain values whose items are compared after a call
_descriptor = torch._C.TensorBase.__dict__.__getitem__
_t_requires_grad = _descriptor("requires_grad").__get__
_t_shape = _descriptor("shape").__get__
_t_dtype = _descriptor("dtype").__get__
_t_stride = _descriptor("stride")
_t_storage_offset = _descriptor("storage_offset")
_t_untyped_storage = _descriptor("untyped_storage")
_t_numel = _descriptor("numel")
_t_element_size = _descriptor("element_size")
_t_version = _descriptor("_version").__get__
_t_is_leaf = _descriptor("is_leaf").__get__
_t_grad_fn = _descriptor("grad_fn").__get__
_t_view_as = _descriptor("view_as")
_t_backward_hooks = _descriptor("_backward_hooks").__get__
_t_post_accumulate_hooks = _descriptor("_post_accumulate_grad_hooks").__get__
_t_layout = _descriptor("layout").__get__
_t_is_nested = _descriptor("is_nested").__get__
_t_is_quantized = _descriptor("is_quantized").__get__
_strided = torch.strided
_storage_ptr = torch._C.StorageBase.data_ptr  # type: ignore[attr-defined]
_storage_nbytes = torch._C.StorageBase.nbytes  # type: ignore[attr-defined]
_grad_enabled = torch._C.is_grad_enabled
_set_grad_enabled = torch._C._set_grad_enabled
_GradientEdge = torch.autograd.graph.GradientEdge
_no_torch_function = torch._C.DisableTorchFunction
_no_torch_dispatch = torch._C._DisableTorchDispatch
_run_backward = torch.autograd.variable.Variable._execution_engine.run_backward  # type: ignore[attr-defined]
_empty = torch.empty
_frombuffer = torch.frombuffer
_as_strided = torch.as_strided
_prod = math.prod
_perf_counter = time.perf_counter
_exc_traceback = BaseException.__dict__["__traceback__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_TracebackType = types.TracebackType

SUBMISSION_FILENAME = "submission.py"
MAX_FRAMES = 5  # the submission's innermost frames a raised exception is reported with


class Served:
    """A loaded submission and what serving it needs; `runner` calls the learner's functions."""

    def __init__(self, module: types.ModuleType, output: Output, runner: Any, graveyard: list[Any],
                 guard: Guard | None, arena_copies: bool = False,
                 elapsed: Callable[[], float] | None = None) -> None:
        self.module = module
        self.output = output
        self.runner = runner
        self.graveyard = graveyard
        self.guard = guard
        self.arena_copies = arena_copies  # the in-process benchmark hands over private buffers
        self.stand_in = output.namespace["StandIn"]
        # Seconds the runner's last call took of the learner's thread's own time (LearnerThread.last_call_s): a
        # call's duration leaves out its wait for a CPU, as its time limit does, so the judge's budgets spend the
        # same on a busy machine. None (a runner that calls directly): the call's wall time.
        self.elapsed = elapsed
        self.source: list[str] = []  # the submission's lines, for tracebacks (compiled from a string, not a file)
        self.modules: dict[str, types.ModuleType] = {}  # the problem's modules sent with the load (helpers.py)

    def calls(self, request: dict[str, Any], blobs: list[Any], max_message: int) -> tuple[dict[str, Any], list[bytes]]:
        """One `calls` request: every call in order, its reply, and the reply's blobs (grader.messages names
        every field; each reply carries all of them, so the judge can refuse one that lacks any)."""
        calls = request["calls"]
        if type(calls) is not list:
            return {"op": "results", "results": []}, []
        reply_blobs: list[bytes] = []
        kept: list[Kept] = []
        try:
            replies = [self.call(call, blobs, reply_blobs, max_message, kept=kept, position=position)
                       for position, call in enumerate(calls)]
        except protocol.OverBudget as over:  # the calls after it are not run: the judge ends this child
            return {"op": "too_large", "size": over.size}, []
        finally:
            self.graveyard.append(kept)  # the kept results die on the learner's thread, as every result does
        return {"op": "results", "results": replies}, reply_blobs

    def call(self, call: dict[str, Any], blobs: list[Any], reply_blobs: list[bytes],
             max_message: int | None = None, kept: list[Kept] | None = None, position: int = 0) -> dict[str, Any]:
        """One call and its reply; its blobs go on `reply_blobs`. OverBudget (before any copy that would take
        the request's blobs past `max_message`): the reply could never be sent, whatever memory is left. `kept`:
        the results this request's earlier calls were asked to keep; this call's result is compared with them,
        and joins them, as the call at `position` of its request, when the call asks (`keep`)."""
        decoder = protocol.Decoder(blobs, copy=self.arena_copies, results=False, opaque=self.stand_in)
        with _no_torch_function(), _no_torch_dispatch():  # no mode, however it got on this thread, sees this
            arguments = decoder.decode(call["arguments"])
        args, kwargs = arguments
        self.graveyard.append(arguments)
        owner = self.modules.get(call["module"]) if call["module"] else self.module
        function = owner.__dict__.get(call["function"]) if owner is not None else None
        reply: dict[str, Any] = {"value": None, "raised": None, "missing": False, "grads": {}, "backward_error": None,
                                 "grad_output": None, "mutated": [], "aliased": [], "shares": [], "output": "",
                                 "duration_ms": 0.0}
        if not callable(function):
            reply["missing"] = True
            return reply
        named = [(str(i), v) for i, v in enumerate(args)] + list(kwargs.items())
        tensors = [(key, value) for key, value in named if type(value) is _Tensor or type(value) is _Parameter]
        plain = [(key, value, _plain(value)) for key, value in named if type(value) is _list or type(value) is _tuple]
        # The tensors inside a list or tuple argument (clip_grad_norm's grads), for the storage a result may share
        # with them, under that argument's key: taken now, as the top-level ones are, so a call that puts other
        # tensors into the caller's list afterwards hides nothing.
        nested = [(key, t) for key, value in named if type(value) is _list or type(value) is _tuple
                  for t in _tensors_in(value)]
        with _no_torch_function(), _no_torch_dispatch():
            layouts = [_layout(t) for _, t in tensors]
            # Where each argument's gradient accumulates, taken now: a call that clears requires_grad on the
            # caller's tensors after building its graph still gets the gradient that reaches them measured.
            edges = {key: _grad_accumulator(t) for key, t in tensors if _t_requires_grad(t) and _t_is_leaf(t)}
            # The same for each tensor of a list argument whose gradient is asked for (DINO's student views): by
            # the argument's key, one entry a tensor in order, None for one that was no leaf requiring grad.
            wanted = call["grads"] if type(call["grads"]) is _list else []
            listed = {key: [(t, _grad_accumulator(t) if _t_requires_grad(t) and _t_is_leaf(t) else None)
                            for item_key, t in nested if item_key == key]
                      for key, value in named if (type(value) is _list or type(value) is _tuple) and key in wanted}
            # Their layouts, hooks included: a hook registered on one would run in the backward that measures it.
            listed_layouts = {key: [_layout(t) for t, _ in items] for key, items in listed.items()}
        if call["module"]:  # a helper is handed the learner's functions it drives, by name, before its arguments
            args = (self.handed(call["uses"]), *args)
        started = _perf_counter()
        try:
            ok, value = self.runner(function, args, kwargs)
        except Interfered as exc:
            ok, value = False, exc
        seconds = self.elapsed() if self.elapsed is not None else _perf_counter() - started
        reply["duration_ms"] = seconds * 1000
        if not ok:
            reply["raised"] = self.exception_summary(value)
            reply["output"] = self.output.take()
            return reply
        outs = _tensors_in(value)  # the returned tensors, walked once: every fact below is about these
        unreadable = _unreadable(outs)
        if unreadable is not None:
            # A sparse, nested or quantized tensor has no plain storage to compare or copy, and a complex one no
            # default cotangent: the call's answer is a value the grader cannot read, named as such, not a worker
            # that died reading it.
            what, advice = unreadable
            reply["value"] = {"opaque": f"unencodable result ({what}; {advice})"}
            if call["grads"]:
                reply["backward_error"] = f"no gradient: the result holds {what}"
            reply["output"] = self.output.take()
            return reply
        encoder = protocol.Encoder(preserve_views=False, max_bytes=max_message,
                                   nbytes=sum(len(blob) for blob in reply_blobs))
        encoder.blobs = reply_blobs
        blobs_before = len(reply_blobs)
        try:
            with _no_torch_function(), _no_torch_dispatch():
                # Bytes written to an argument the judge sees in its own mapping; a change of shape, strides,
                # storage or version counter (t_(), resize_(), set_(), a same-value write) only this process sees.
                reply["mutated"] = [key for (key, t), layout in zip(tensors, layouts, strict=True)
                                    if not _same_layout(layout, _layout(t))]
                # A list of plain values (token ids, pairs) changed in place: appended to, sorted, an item replaced.
                reply["mutated"] += [key for key, value, before in plain
                                     if before is not None and _plain(value) != before]
                # A tensor of a list whose gradient is asked for, changed like a tensor argument (a hook on it).
                reply["mutated"] += [key for key, items in listed.items() if key not in reply["mutated"] and not all(
                    _same_layout(before, _layout(t)) for (t, _), before in zip(items, listed_layouts[key],
                                                                             strict=True))]
                reply["aliased"] = _aliased(outs, tensors + nested)
                if kept is not None:
                    reply["shares"] = _shares(outs, kept)
                    if call["keep"] is True:
                        kept.append(Kept(position, outs))
                try:
                    reply["value"] = encoder.encode(value)
                except protocol.ProtocolError as exc:
                    reply["value"] = {"opaque": f"unencodable result ({exc})"}
                if call["grads"]:
                    self.gradients(reply, value, outs, call, dict(tensors), edges, listed, decoder, encoder)
        except MemoryError:
            # The function returned, but reading its result (encoding copies it, a gradient is computed here)
            # does not fit in what its memory limit leaves: the call ran out of memory, as one whose own
            # allocation failed does. Left to escape, this ended the worker with status 0, which the judge can
            # only read as the learner's os._exit.
            del reply_blobs[blobs_before:]
            reply.update(value=None, grads={}, grad_output=None, backward_error=None, mutated=[], aliased=[], shares=[])
            reply["raised"] = self.exception_summary(MemoryError(
                "the result did not fit in memory a second time, as the grader copies it to read it"))
        reply["output"] = self.output.take()
        return reply

    def handed(self, names: Any) -> dict[str, Any]:
        """The learner's functions of these names (None for a name the submission does not define: the helper's
        call of it then raises, as the learner's own call of a missing function would)."""
        functions = self.module.__dict__
        return {name: functions.get(name) for name in (names if type(names) is list else ()) if type(name) is str}

    def gradients(self, reply: dict[str, Any], value: Any, results: list[Any], call: dict[str, Any],
                  tensors: dict[str, Any], edges: dict[str, Any], listed: dict[str, list[tuple[Any, Any]]],
                  decoder: Any, encoder: Any) -> None:
        """Vector-Jacobian products of the result with respect to the arguments asked for. A cotangent comes
        with the call (read into memory of this process's own), or is the default one (grader.protocol.cotangent),
        made here without a torch operator and sent back; either is checked to be those bytes in that memory just
        before the backward pass. Which arguments take part is decided by the snapshot from before the call
        (`edges`): an argument that required grad then is differentiated through its accumulator, even if the call
        cleared its requires_grad since. A list argument (`listed`: its tensors and their accumulators, taken
        before the call) gets a list of gradients, one a tensor in it, in order."""
        wanted = [key for key in call["grads"] if type(key) is str]
        grads: dict[str, Any] = {key: None for key in wanted}
        reply["grads"] = grads
        given = call["grad_output"]
        made: list[Held] = []
        try:
            if given is not None:
                cotangent, made = _given_cotangent(given, decoder.blobs, self.stand_in)
                cotangents = list(cotangent) if type(cotangent) in (tuple, list) else [cotangent]
            else:  # one per tensor of the result, in order (a check's central differences pair them up)
                made = [_default_cotangent(t, index) for index, t in enumerate(results)]
                cotangents = [cotangent for cotangent, _, _ in made]
                if results:
                    reply["grad_output"] = encoder.encode(tuple(cotangents) if type(value) in (tuple, list)
                                                          else cotangents[0])
            if not any(_t_requires_grad(t) for t in results):
                reply["backward_error"] = ("the result does not require grad, so no gradient can flow back from it "
                                           "(was it detached, or rebuilt from Python numbers?)")
                return
            pairs = [(t, c) for t, c in zip(results, cotangents, strict=False) if _t_requires_grad(t)]
            inputs: list[tuple[Any, Any]] = [
                (key, tensors[key] if _t_requires_grad(tensors[key]) else _GradientEdge(edges[key], 0))
                for key in wanted if key in edges]
            for key in wanted:
                for index, (t, edge) in enumerate(listed.get(key, ())):
                    if edge is not None:
                        inputs.append(((key, index), t if _t_requires_grad(t) else _GradientEdge(edge, 0)))
            if not inputs:
                return
            if not all(_intact(*item) for item in made):  # no torch operator runs from here to the engine
                raise _CotangentChanged("the cotangent the grader made for a gradient is no longer the memory and "
                                        "bytes it was made as (an operator the grader uses to hold it was changed)")
            found = _run_backward(tuple(t for t, _ in pairs), tuple(c for _, c in pairs), False, False,
                                  tuple(t for _, t in inputs), True, False)
        except BaseException as exc:  # noqa: B902 - the learner's backward may raise anything
            # Past the message limit, or a cotangent that is not the judge's: neither is the learner's answer.
            if encoder.over or protocol.ProtocolError in _type_mro(type(exc)):
                raise
            reply["backward_error"] = self.exception_summary(exc)["message"]
            self.graveyard.append(exc)
            return
        self.graveyard.append(found)
        items: dict[str, list[Any]] = {key: [None] * len(listed[key]) for key in wanted if key in listed}
        for (key, _), grad in zip(inputs, found, strict=True):
            unreadable = None if grad is None else _unreadable([grad])
            if unreadable is not None:  # a sparse gradient (an embedding with sparse=True): the learner's to densify
                reply["backward_error"] = (f"the gradient came back as {unreadable[0]}, which the grader cannot "
                                           "read; make it dense")
                continue
            if type(key) is tuple:
                items[key[0]][key[1]] = grad
            else:
                grads[key] = None if grad is None else encoder.encode(grad)
        for key, gradients in items.items():
            grads[key] = encoder.encode(gradients)

    def source_line(self, number: int) -> str:
        return self.source[number - 1].strip()[:200] if 0 < number <= len(self.source) else ""

    def exception_summary(self, exc: BaseException) -> dict[str, Any]:
        # Walk the traceback by hand, keeping the last few frames of the submission: traceback.extract_tb looks
        # up a source line for every frame, which after a deep recursion takes longer than any limit. From the
        # innermost frame outwards, and only until five of the submission's are found: reading a frame's code is
        # an audited event the guard sees, 1.5 us a frame, and a recursion that hit the cap has 10,000 of them
        # (15 ms of each such call, hundreds of calls a grading).
        entries = []
        tb = _exc_traceback(exc)
        while type(tb) is _TracebackType:
            entries.append(tb)
            tb = tb.tb_next
        last: list[tuple[int, str]] = []
        guard = self.guard
        if guard is not None:
            guard.trusted = True
        try:
            for tb in reversed(entries):
                code = tb.tb_frame.f_code
                if code.co_filename == SUBMISSION_FILENAME:
                    last.append((tb.tb_lineno or 0, code.co_name))
                    if len(last) == MAX_FRAMES:
                        break
        finally:
            if guard is not None:
                guard.trusted = False
        frames = [[line, name, self.source_line(line)] for line, name in reversed(last)]
        kind = type(exc)
        if kind is SyntaxError or SyntaxError in _type_mro(kind):
            if exc.filename == SUBMISSION_FILENAME:  # type: ignore[attr-defined]
                frames.append([exc.lineno or 0, "<module>", str(exc.text or "").strip()[:200]])  # type: ignore[attr-defined]
        try:
            message = exc.msg if SyntaxError in _type_mro(kind) and exc.msg else str(exc)  # type: ignore[attr-defined]
            if type(message) is not str:
                message = "<the exception's message could not be read>"
        except BaseException:  # noqa: B902 - a hostile __str__
            message = "<the exception's message could not be read>"
        mro = [str(_type_name(k)) for k in _type_mro(kind)][:16]
        return {"type": str(_type_name(kind))[:100], "mro": mro, "message": message[:2000],
                "traceback": frames[-MAX_FRAMES:]}


def _layout(t: Any) -> tuple[Any, ...]:
    """Every fact of an argument a call could change without writing its bytes: shape, strides, storage, version
    counter, its class (`__class__` can be assigned a subclass with __torch_function__), its autograd facts
    (requires_grad, leafness, grad_fn) and whether any hook was registered on it. The class and grad_fn come last,
    compared with `is` (never with their own or their metaclass's __eq__), not through id(): each id() is an event
    the guard's audit hook sees, four a tensor argument a call."""
    storage = _t_untyped_storage(t)
    return (tuple(_t_shape(t)), tuple(_t_stride(t)), _t_storage_offset(t), _storage_ptr(storage), _t_version(t),
            bool(_t_requires_grad(t)), bool(_t_is_leaf(t)), _t_backward_hooks(t) is None,
            _t_post_accumulate_hooks(t) is None, type(t), _t_grad_fn(t))


def _plain(value: Any, depth: int = 0) -> Any:
    """A snapshot of a list or tuple of plain Python values (ints, floats, bools, strs, None, nested lists and
    tuples of them), made of those exact types only, so comparing two never runs the learner's code; None when it
    holds anything else (a tensor's own facts are compared by _layout)."""
    kind = type(value)
    if kind is _list or kind is _tuple:
        if depth > 4 or len(value) > _PLAIN_ITEMS:
            return None  # past what a plain argument holds: not compared (one grown this long has changed)
        items = []
        for item in value:
            snapshot = _plain(item, depth + 1)
            if snapshot is None:
                return None
            items.append(snapshot)
        return (kind is _list, _tuple(items))
    if kind is _int or kind is _bool or kind is _str or kind is _none:
        return (kind is _bool, kind is _str, value)
    if kind is _float:
        return ("float", _repr(value))  # nan equals itself here
    return None


def _same_layout(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    return before[:-2] == after[:-2] and before[-2] is after[-2] and before[-1] is after[-1]


def _grad_accumulator(t: Any) -> Any:
    """The AccumulateGrad node of a leaf that requires grad: the node a graph built from it feeds. Held by the
    caller, it stays the tensor's accumulator for as long as the call's graph lives."""
    enabled = _grad_enabled()
    _set_grad_enabled(True)
    try:
        return _t_grad_fn(_t_view_as(t, t)).next_functions[0][0]
    finally:
        _set_grad_enabled(enabled)

# A cotangent as the backward pass will read it: the tensor, its memory, and what `_intact` finds them still to be.
Held = tuple[Any, bytearray, tuple[Any, ...]]


class _CotangentChanged(protocol.ProtocolError):
    """A cotangent's tensor or bytes changed between being made (or read from the judge's memory) and the backward
    pass: ends the child as a tampering (grader/sandboxed/child_loop.py), never reported as the learner's backward
    error."""


def _default_cotangent(t: Any, index: int) -> Held:
    """The default cotangent of result tensor `t` (the `index`-th of its result), its memory and what it must
    still be: (dtype, shape, strides, offset, the memory's address, the bytes). Wrapping the bytes runs no
    operator; giving them the result's shape does (as_strided), and a kernel there could hand back other memory
    or write this memory, so `_intact` checks both just before the backward pass."""
    dtype, shape = _t_dtype(t), tuple(_t_shape(t))
    name = protocol.DTYPE_NAMES.get(dtype)
    if name is None:
        raise protocol.ProtocolError(f"no default cotangent for a result of dtype {dtype}")
    data = protocol.default_cotangent_bytes(name, _prod(shape), index)
    memory = bytearray(data)
    strides = tuple(protocol.encoding._contiguous_strides(list(shape)))
    if not data:  # no element: nothing to read, only the shape and dtype matter
        return _empty(shape, dtype=dtype), memory, (dtype, shape, None, 0, None, data)
    flat = _frombuffer(memory, dtype=dtype)
    address = _storage_ptr(_t_untyped_storage(flat))
    return _as_strided(flat, shape, strides, 0), memory, (dtype, shape, strides, 0, address, data)


def _given_cotangent(tree: Any, blobs: list[Any], stand_in: Any) -> tuple[Any, list[Held]]:
    """A cotangent the check gave, rebuilt over copies of its blobs taken before any operator runs (the judge's
    memory stays out of reach of a kernel the rebuilding calls), and for each of its tensors what `_intact`
    checks before the backward pass. Its blobs are copied, not the call's arguments'."""
    used = protocol.storages_of(tree)
    copies = {index: bytearray(blobs[index]) for index in used if 0 <= index < len(blobs)}
    snapshots = {index: bytes(memory) for index, memory in copies.items()}
    decoder = protocol.Decoder([copies.get(index, b"") for index in range(len(blobs))], copy=False, results=False,
                               opaque=stand_in)
    value = decoder.decode(tree)
    by_address = {decoder.blob_address(index): index for index in copies if decoder.blob_address(index) is not None}
    made: list[Held] = []
    for t in _tensors_in(value):
        dtype, shape = _t_dtype(t), tuple(_t_shape(t))
        storage = _t_untyped_storage(t)
        index = by_address.get(_storage_ptr(storage))
        if index is None or _prod(shape) == 0:  # empty, or meta: no values to change, only shape and dtype
            made.append((t, bytearray(), (dtype, shape, None, 0, None, b"")))
        else:
            made.append((t, copies[index], (dtype, shape, tuple(_t_stride(t)), _t_storage_offset(t),
                                           _storage_ptr(storage), snapshots[index])))
    return value, made


def _intact(cotangent: Any, memory: bytearray, made: tuple[Any, ...]) -> bool:
    """Whether `cotangent` is still a plain tensor of the made dtype and shape, over the made memory at the made
    strides and offset (checked through descriptors, which no kernel reaches), and that memory still the made
    bytes."""
    dtype, shape, strides, offset, address, data = made
    if type(cotangent) is not _Tensor or _t_dtype(cotangent) != dtype or tuple(_t_shape(cotangent)) != shape:
        return False
    if address is None:
        return True
    storage = _t_untyped_storage(cotangent)
    return (tuple(_t_stride(cotangent)) == strides and _t_storage_offset(cotangent) == offset
            and _storage_ptr(storage) == address and _storage_nbytes(storage) == len(data) and memory == data)


class Kept:
    """A result held until its request ends, so no later result of the request can be given its memory anew:
    the tensors it returned, and their storages as they were when it returned (a later call that moves a kept
    tensor onto other memory with `set_` cannot take the old memory out of the comparison, nor free it)."""

    def __init__(self, position: int, tensors: list[Any]) -> None:
        self.position = position
        self.tensors = tensors
        self.storages = [_t_untyped_storage(t) for t in self.tensors]


def _shares(outs: list[Any], kept: list[Kept]) -> list[int]:
    """Positions of the kept results whose memory a returned tensor (`outs`) overlaps: the storages each kept
    tensor had when it returned, and the one it has now."""
    found = []
    for earlier in kept:
        held = list(zip(earlier.tensors, earlier.storages, strict=True))
        held += [(t, _t_untyped_storage(t)) for t in earlier.tensors]
        if any(_overlap(out, _t_untyped_storage(out), t, storage) for out in outs for t, storage in held):
            found.append(earlier.position)
    return found


def _overlap(out: Any, out_storage: Any, held: Any, held_storage: Any) -> bool:
    if out is held:
        return True
    start, a_start = _storage_ptr(out_storage), _storage_ptr(held_storage)
    if start == 0 or a_start == 0:  # no memory at all (an empty tensor): nothing to share
        return False
    return start < a_start + _storage_nbytes(held_storage) and a_start < start + _storage_nbytes(out_storage)


def _aliased(outs: list[Any], tensors: list[tuple[str, Any]]) -> list[str]:
    """Argument keys whose storage overlaps the storage of any returned tensor (`outs`)."""
    ranges = []
    for _, t in tensors:
        storage = _t_untyped_storage(t)
        ranges.append((_storage_ptr(storage), _storage_ptr(storage) + _storage_nbytes(storage)))
    found: set[str] = set()
    for out in outs:
        storage = _t_untyped_storage(out)
        start = _storage_ptr(storage)
        end = start + _storage_nbytes(storage)
        for (key, arg), (a_start, a_end) in zip(tensors, ranges, strict=True):
            if a_start == 0 or start == 0:  # no memory at all (an empty or meta tensor): nothing to share
                if out is arg:
                    found.add(key)
                continue
            if out is arg or (start < a_end and a_start < end) or start == a_start:
                found.add(key)
    return sorted(found)


def _unreadable(tensors: list[Any]) -> tuple[str, str] | None:
    """What makes one of these tensors one the worker cannot read (its storage, its bytes), and what to do
    instead; None where it can read them all."""
    for t in tensors:
        layout = _t_layout(t)
        # Short: a check shows the first 75 characters or so of a value it cannot read.
        if layout is not _strided:
            return f"a {layout} tensor", "return a dense one"
        if _t_is_nested(t):
            return "a nested tensor", "return a dense one"
        if _t_is_quantized(t):
            return f"a {_t_dtype(t)} tensor", "dequantize it"
        if _t_dtype(t) not in protocol.DTYPE_NAMES:
            return f"a {_t_dtype(t)} tensor", "use float, int or bool"
        if _t_numel(t) and _storage_nbytes(_t_untyped_storage(t)) < _extent(t):
            return "a tensor whose storage was shrunk", "return a whole one"
    return None


def _extent(t: Any) -> int:
    """The bytes of storage a tensor's elements reach (it has at least one)."""
    last = _t_storage_offset(t) + sum((size - 1) * stride for size, stride in zip(_t_shape(t), _t_stride(t),
                                                                                 strict=True))
    return (last + 1) * _t_element_size(t)


def _tensors_in(value: Any, depth: int = 0) -> list[Any]:
    if depth > 8:
        return []
    if type(value) is _Tensor or type(value) is _Parameter:
        return [value]
    if type(value) is tuple or type(value) is list:
        return [t for item in value for t in _tensors_in(item, depth + 1)]
    return []
