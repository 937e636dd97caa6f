"""Vector-Jacobian products of the judge's own code (the reference), through autograd's engine directly.

`torch.autograd.grad` with explicit cotangents checks their shapes through torch's symbolic-shape stack, which it
imports on that first call: `torch.fx.experimental.symbolic_shapes` and sympy, 487 modules and 0.2 s. A server's
judge pays that once, but `grader grade` paid it in the middle of every grading whose checks differentiate the
reference (25 of the 42 problems), on its critical path. The engine is what `torch.autograd.grad` calls after
that check; the plain shape comparison here keeps the check."""

from __future__ import annotations

from collections.abc import Sequence

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


__all__ = ["vjp"]
