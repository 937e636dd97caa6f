"""Which code torch runs for the worker's own operations on the grader's thread: taken before the submission loads
and compared after loading (every kernel) and after every request (modes, dispatch keys, fallbacks), so that no
kernel, mode or dispatch key the learner's code registered computes a fact the judge relies on."""

from __future__ import annotations

from typing import Any

import torch

_dispatch_dump = torch._C._dispatch_dump
_dispatch_dump_table = torch._C._dispatch_dump_table
_function_modes = torch._C._len_torch_function_stack
_dispatch_modes = torch._C._len_torch_dispatch_stack
_infra_mode = torch._C._get_dispatch_mode
_INFRA_MODES = tuple(torch._C._TorchDispatchModeKey.__members__.values())
_tls_included = torch._C._dispatch_tls_local_include_set
_tls_excluded = torch._C._dispatch_tls_local_exclude_set
_autograd_fallback_mode = torch._C._get_autograd_fallback_mode
_grad_enabled = torch._C.is_grad_enabled

# The operators the worker's own code runs on its thread (decoding arguments, comparing, encoding results), directly
# or through the kernels of the ones it calls, and those that drew the default cotangent before it was made without
# torch (ones, zeros, randn, fill_, normal_), still watched at the load. A kernel the learner registers for any of
# them would run learner code inside the worker's operations and could hand the function a private copy of an
# argument. `_dispatch_dump` lists every kernel of an
# operator, an overridden one as "(inactive)" and a Python one with no signature, so no registration leaves it
# as it was, whatever file name it claims.
WORKER_OPERATOR_NAMES = (
    "as_strided", "view", "_unsafe_view", "_reshape_alias", "alias", "reshape", "view_as", "detach", "set_",
    "contiguous", "clone", "copy_", "empty", "empty_like", "empty_strided", "requires_grad_", "ones", "zeros",
    "randn", "normal_", "fill_", "zero_", "_to_copy", "to", "resolve_conj", "resolve_neg",
)
# Every overload of each, as the dispatcher names them. A kernel is registered for one overload, and an operator
# name without its overload names no operator at all where every form has one (`aten::fill_` dumps as "", while
# `ones` fills through fill_.Scalar): the worker runs view.dtype, randn.generator and empty.memory_format too.
WORKER_OPERATORS = tuple(sorted(
    name for name in torch._C._dispatch_get_all_op_names()
    if name.partition(".")[0] in {"aten::" + base for base in WORKER_OPERATOR_NAMES}
))
# An operator of our own with no kernel: its dispatch table is the table of backend fallbacks (one registered
# for a key with none before shows there; an existing one cannot be replaced, the dispatcher refuses that).
REFUSED_NAMESPACES = ("aten", "_", "prims")  # "_": backend fallbacks, for every operator at once
PROBE_OPERATOR = "paperlab_worker::probe"
_PROBE_LIBRARY = torch.library.Library("paperlab_worker", "FRAGMENT")
if PROBE_OPERATOR not in torch._C._dispatch_get_all_op_names():  # this module may be imported twice (tests)
    _PROBE_LIBRARY.define("probe(Tensor x) -> Tensor")


def snapshot(kernels: Any = None) -> tuple[Any, ...]:
    """What decides which code torch runs for the worker's own operations on this thread: the kernels of every
    operator it uses, the backend fallbacks, the mode stacks, the thread's dispatch key sets and autograd's
    fallback mode. Taken before the submission loads and compared after loading and after every request.

    `kernels`: use these dumps instead of reading them again (46 dumps, 0.4 ms on a fast machine and 2-3 ms in a
    child on a slow one; the rest costs 0.01 ms). The dumps are read again after the load and when the worker's
    own operations raise, not after each request: a request's facts rest on no kernel. The arguments it decodes
    are checked against the arena one by one, through descriptors; the default cotangent is made without an
    operator and checked the same way, bytes and all, just before the backward pass
    (grader/sandboxed/serving.py); and what the encoder reports, the value and the gradients, is the learner's
    own answer, which the learner's code could have computed anyway. A comparison of dumps could not have been
    the guard there in any case: a kernel can remove its own registration the first time it runs."""
    return (
        tuple(_dispatch_dump(name) for name in WORKER_OPERATORS) if kernels is None else kernels,
        _dispatch_dump_table(PROBE_OPERATOR),
        _function_modes(),
        _dispatch_modes(),
        tuple(_infra_mode(key) is None for key in _INFRA_MODES),
        str(_tls_included()),
        str(_tls_excluded()),
        _autograd_fallback_mode(),
        _grad_enabled(),
    )


def changes(before: tuple[Any, ...], after: tuple[Any, ...]) -> str:
    """What differs between two `snapshot`s, in words ("" when nothing does)."""
    found = [f"a kernel registered for {name}" for name, old, new
             in zip(WORKER_OPERATORS, before[0], after[0], strict=True) if old != new]
    names = ("", "a backend fallback registered", "a torch function mode left on", "a torch dispatch mode left on",
             "a dispatch mode left on", "the dispatch keys of the grader's thread changed",
             "the dispatch keys of the grader's thread changed", "autograd's fallback mode changed",
             "gradient mode switched off on the grader's thread")
    for index in range(1, len(names)):
        if before[index] != after[index] and names[index] not in found:
            found.append(names[index])
    return ", ".join(found)

