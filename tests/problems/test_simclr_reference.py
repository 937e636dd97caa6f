"""Fast in-process tests of the SimCLR reference: the numbers the statement promises."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("simclr").reference  # it imports helpers.py: load_problem makes that work


def test_hand_example(ref: ModuleType) -> None:
    z1 = torch.tensor([[3.0, 0.0], [0.0, 0.5]])
    z2 = torch.tensor([[2.0, 0.0], [0.0, 4.0]])
    loss = ref.nt_xent_loss(z1, z2, 0.5)
    assert loss.shape == () and loss.dtype == torch.float32
    assert loss.item() == pytest.approx(math.log(1 + 2 * math.exp(-2)), rel=1e-6)
    assert ref.nt_xent_loss(z1, z2.flip(0), 0.5).item() == pytest.approx(math.log(2 + math.exp(2)), rel=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_single_pair_is_zero(ref: ModuleType, dtype: torch.dtype) -> None:
    generator = torch.Generator().manual_seed(2)
    z1 = torch.randn(1, 5, generator=generator, dtype=dtype)
    z2 = torch.randn(1, 5, generator=generator, dtype=dtype)
    assert ref.nt_xent_loss(z1, z2, 0.1).item() == 0.0


def test_symmetric_and_both_views_get_gradients(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    z1 = torch.randn(4, 3, generator=generator, dtype=torch.float64, requires_grad=True)
    z2 = torch.randn(4, 3, generator=generator, dtype=torch.float64, requires_grad=True)
    loss = ref.nt_xent_loss(z1, z2, 0.3)
    assert loss.item() == pytest.approx(ref.nt_xent_loss(z2, z1, 0.3).item(), rel=1e-12)
    loss.backward()
    assert z1.grad is not None and z2.grad is not None
    assert z1.grad.abs().sum() > 0 and z2.grad.abs().sum() > 0


def test_matches_explicit_formula(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(1)
    z1 = torch.randn(3, 4, generator=generator, dtype=torch.float64)
    z2 = torch.randn(3, 4, generator=generator, dtype=torch.float64)
    views = [v / v.norm() for v in torch.cat([z1, z2])]
    n, t, total = 3, 0.5, 0.0
    for k in range(2 * n):
        logits = [float(views[k] @ views[j]) / t for j in range(2 * n) if j != k]
        total += math.log(sum(math.exp(s) for s in logits)) - float(views[k] @ views[(k + n) % (2 * n)]) / t
    assert ref.nt_xent_loss(z1, z2, t).item() == pytest.approx(total / (2 * n), rel=1e-12)


def test_stable_at_small_temperature(ref: ModuleType) -> None:
    z = torch.randn(4, 8)
    assert torch.isfinite(ref.nt_xent_loss(z, z + 0.01, 0.001))


@pytest.mark.parametrize("bad", [True, torch.tensor(0.5), "0.5", None])
def test_temperature_kind(ref: ModuleType, bad: object) -> None:
    with pytest.raises(TypeError):
        ref.nt_xent_loss(torch.ones(2, 2), torch.ones(2, 2), bad)


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf])
def test_temperature_range(ref: ModuleType, bad: float) -> None:
    with pytest.raises(ValueError):
        ref.nt_xent_loss(torch.ones(2, 2), torch.ones(2, 2), bad)
