"""Vector-Jacobian products of the judge's own code (the reference), through autograd's engine directly; and the
cotangent a learner's result is differentiated with when a check gives none, which the judge draws itself rather
than take the worker's word for it (`default_cotangent`).

`torch.autograd.grad` with explicit cotangents checks their shapes through torch's symbolic-shape stack, which it
imports on that first call: `torch.fx.experimental.symbolic_shapes` and sympy, 487 modules and 0.2 s. A server's
judge pays that once, but `grader grade` paid it in the middle of every grading whose checks differentiate the
reference (25 of the 42 problems), on its critical path. The engine is what `torch.autograd.grad` calls after
that check; the plain shape comparison here keeps the check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.autograd.graph

from grader.protocol import COTANGENT_SEED, DTYPE_NAMES, default_cotangent_bytes

# What torch.autograd.grad calls once it has checked the cotangents (a private helper of torch, pinned exactly).
_engine_run_backward = torch.autograd.graph._engine_run_backward


def vjp(outputs: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor],
        cotangents: Sequence[torch.Tensor]) -> tuple[torch.Tensor | None, ...]:
    """The gradients of `outputs` with respect to `inputs` against `cotangents` (one per output, of its shape; the
    engine casts each to its output's dtype), as `torch.autograd.grad(outputs, inputs, cotangents,
    allow_unused=True)` computes them: None for an input no output depends on."""
    if len(cotangents) != len(outputs):
        raise ValueError(f"vjp: {len(cotangents)} cotangents for {len(outputs)} outputs")
    for index, (output, cotangent) in enumerate(zip(outputs, cotangents, strict=True)):
        if cotangent.shape != output.shape:  # the engine would sum a larger one down to the output's shape
            raise RuntimeError(f"Mismatch in shape: grad_output[{index}] has a shape of {tuple(cotangent.shape)} "
                               f"and output[{index}] has a shape of {tuple(output.shape)}.")
    found: tuple[torch.Tensor | None, ...] = _engine_run_backward(
        tuple(outputs), tuple(cotangents), False, False, tuple(inputs), True, accumulate_grad=False)
    return found


def default_cotangent(result: Any) -> Any:
    """The cotangent the worker differentiates a result with when a check gives none: per tensor of the result,
    depth first, the bytes grader.protocol.cotangent makes for its dtype, size and index (zeros for an integer or
    bool tensor, ones for a one-element tensor, values in [-1, 1) otherwise); a tuple of them for a tuple or list
    result. None for a result with no tensor.

    The judge makes it itself and never takes the worker's word for it. The worker makes the same bytes without
    a torch operator and checks them just before its backward pass: a kernel the learner registers (even one
    that removes itself once it has run, leaving no trace for the worker's comparison of its kernels) could
    otherwise shrink the cotangent a wrong gradient is computed with and report it unchanged."""
    tensors = tensors_in(result)
    if not tensors:
        return None
    drawn = [_default_cotangent(t, index) for index, t in enumerate(tensors)]
    return tuple(drawn) if type(result) is tuple or type(result) is list else drawn[0]


def same_cotangent(reported: Any, drawn: Any) -> bool:
    """Whether the worker's reported cotangent is exactly the one the judge drew: a tuple for a tuple, and each
    tensor of the same dtype, shape and bits."""
    if isinstance(reported, tuple | list) != isinstance(drawn, tuple | list):
        return False
    left = reported if isinstance(reported, tuple | list) else (reported,)
    right = drawn if isinstance(drawn, tuple | list) else (drawn,)
    return len(left) == len(right) and all(
        isinstance(a, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
        for a, b in zip(left, right, strict=True))


def _default_cotangent(t: torch.Tensor, index: int) -> torch.Tensor:
    data = default_cotangent_bytes(DTYPE_NAMES[t.dtype], t.numel(), index)
    if not data:
        return torch.zeros(t.shape, dtype=t.dtype)
    return torch.frombuffer(bytearray(data), dtype=t.dtype).reshape(t.shape)


def tensors_in(value: Any, depth: int = 0) -> list[torch.Tensor]:
    """The tensors of a result in the order the worker pairs them with cotangents (depth first, eight levels)."""
    if depth > 8:
        return []
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, tuple | list):
        return [t for item in value for t in tensors_in(item, depth + 1)]
    return []


__all__ = ["COTANGENT_SEED", "default_cotangent", "same_cotangent", "tensors_in", "vjp"]
