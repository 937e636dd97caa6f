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


# The worker's seeds for a default cotangent: 1234 + the tensor's index among the result's tensors.
COTANGENT_SEED = 1234


def default_cotangent(result: Any) -> Any:
    """The cotangent the worker differentiates a result with when a check gives none (grader/sandboxed/serving.py
    draws it the same way): per tensor of the result, depth first, zeros for an integer or bool tensor, ones for a
    one-element tensor, and otherwise random normal values seeded with COTANGENT_SEED + its index; a tuple of them
    for a tuple or list result. None for a result with no tensor.

    The judge draws it itself and never trusts the one the worker reports: learner code can register a kernel
    for the operator that draws it and have the kernel remove itself once it has run, so that the worker's
    comparison of its kernels after the request finds nothing, and a gradient of a zero cotangent is zero."""
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
    if not (t.dtype.is_floating_point or t.dtype.is_complex):  # indices, masks: no gradient flows from them
        return torch.zeros(t.shape, dtype=t.dtype)
    if t.numel() == 1:
        return torch.ones(t.shape, dtype=t.dtype)
    generator = torch.Generator().manual_seed(COTANGENT_SEED + index)
    return torch.randn(t.shape, generator=generator, dtype=t.dtype)


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
