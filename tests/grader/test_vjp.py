"""grader.vjp: the judge's vector-Jacobian products are torch.autograd.grad's, without its symbolic-shape import."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
import torch

from grader.vjp import vjp

F64 = torch.float64


def _leaf(*shape: int, seed: int, dtype: torch.dtype = F64) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator, dtype=F64).to(dtype).requires_grad_(True)


def _one_output() -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    x, w = _leaf(3, 4, seed=1), _leaf(4, seed=2)
    return [(x * w).sin()], [x, w], [_leaf(3, 4, seed=3).detach()]


def _float32_output_float64_cotangent() -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    x = _leaf(5, seed=4, dtype=torch.float32)
    return [x.exp() * 3], [x], [_leaf(5, seed=5).detach()]  # the engine casts the cotangent to float32


def _two_outputs_and_an_unused_input() -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    x, unused = _leaf(2, 3, seed=6), _leaf(3, seed=7)
    return [x.cos(), x.sum(dim=0)], [x, unused], [_leaf(2, 3, seed=8).detach(), _leaf(3, seed=9).detach()]


@pytest.mark.parametrize("case", [_one_output, _float32_output_float64_cotangent, _two_outputs_and_an_unused_input])
def test_the_gradients_are_torch_autograd_grads_bit_for_bit(
    case: Callable[[], tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]],
) -> None:
    outputs, inputs, cotangents = case()
    expected = torch.autograd.grad(outputs, inputs, cotangents, allow_unused=True, retain_graph=True)
    found = vjp(outputs, inputs, cotangents)
    assert len(found) == len(expected)
    for got, wanted in zip(found, expected, strict=True):
        if wanted is None:
            assert got is None
        else:
            assert got is not None and got.dtype == wanted.dtype and torch.equal(got, wanted)


def test_a_cotangent_of_another_shape_is_refused_even_where_the_engine_would_sum_it() -> None:
    x = _leaf(3, seed=10)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of \(2, 3\) and "
                                           r"output\[0\] has a shape of \(3,\)"):
        vjp([x * 2], [x], [torch.ones(2, 3, dtype=F64)])


def test_one_cotangent_per_output() -> None:
    x = _leaf(3, seed=11)
    with pytest.raises(ValueError, match="1 cotangents for 2 outputs"):
        vjp([x * 2, x * 3], [x], [torch.ones(3, dtype=F64)])


IMPORTED = "torch.fx.experimental.symbolic_shapes"
PROBE = """
import sys, torch
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
{call}
print({imported!r} in sys.modules)
"""


@pytest.mark.parametrize(("call", "imports"), [
    ("torch.autograd.grad([x.sin()], [x], [torch.ones(3, dtype=torch.float64)])", True),  # why grader.vjp exists
    ("from grader.vjp import vjp; vjp([x.sin()], [x], [torch.ones(3, dtype=torch.float64)])", False),
    ("from grader.checks import reference_grads; reference_grads(lambda x: x.sin(), (x,), ('x',), "
     "grad_output=torch.ones(3))", False),
])
def test_the_judges_gradients_do_not_import_torchs_symbolic_shape_stack(call: str, imports: bool) -> None:
    """It is 487 modules and 0.2 s, paid in the middle of a cold `grader grade` (tests hold that it is not)."""
    completed = subprocess.run([sys.executable, "-c", PROBE.format(call=call, imported=IMPORTED)],
                               capture_output=True, text=True, check=True, timeout=120)
    assert completed.stdout.strip() == str(imports)
