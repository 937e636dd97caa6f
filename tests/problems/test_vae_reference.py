"""Fast in-process tests of the VAE reference: the statement's hand examples, and agreement with PyTorch's own
KL (torch.distributions) and binary_cross_entropy_with_logits, including logits where a sigmoid rounds to 0/1."""

import math
from collections.abc import Callable
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("vae").reference  # it imports helpers.py: load_problem makes that work


HAND_MU = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
HAND_LOGVAR = torch.tensor([[0.0, 2 * math.log(2)]], dtype=torch.float64)


def test_hand_example_sample(ref: ModuleType) -> None:
    z = ref.reparameterize(torch.tensor([0.0, 1.0, -2.0]), torch.tensor([0.0, 2 * math.log(2), -2 * math.log(2)]),
                           torch.tensor([1.0, -1.0, 2.0]))
    assert z.tolist() == pytest.approx([1.0, -1.0, -1.0], abs=1e-6)


def test_hand_example_kl_and_loss(ref: ModuleType) -> None:
    assert ref.gaussian_kl(HAND_MU, HAND_LOGVAR).item() == pytest.approx(2 - math.log(2), rel=1e-12)
    loss = ref.elbo_loss(torch.tensor([[1.0, 0.0]], dtype=torch.float64),
                         torch.tensor([[0.0, math.log(3)]], dtype=torch.float64), HAND_MU, HAND_LOGVAR)
    assert loss.item() == pytest.approx(2 + 2 * math.log(2), rel=1e-12)


def test_kl_matches_torch_distributions(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(1)
    mu = torch.randn(6, 4, generator=generator, dtype=torch.float64)
    logvar = torch.randn(6, 4, generator=generator, dtype=torch.float64)
    q, prior = Normal(mu, torch.exp(0.5 * logvar)), Normal(torch.zeros_like(mu), torch.ones_like(mu))
    expected = kl_divergence(q, prior).sum(dim=1).mean()
    assert ref.gaussian_kl(mu, logvar).item() == pytest.approx(expected.item(), rel=1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_loss_matches_bce_with_logits_at_extreme_logits(ref: ModuleType, dtype: torch.dtype) -> None:
    x = torch.tensor([[0.0, 1.0, 0.5], [1.0, 0.25, 0.0]], dtype=dtype)
    logits = torch.tensor([[1e4, -1e4, 30.0], [-50.0, 2.0, -1e4]], dtype=dtype)
    zeros = torch.zeros(2, 3, dtype=dtype)
    expected = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / 2
    assert ref.elbo_loss(x, logits, zeros, zeros).item() == pytest.approx(expected.item(), rel=1e-6)


def test_sample_is_finite_where_only_the_variance_overflows(ref: ModuleType) -> None:
    z = ref.reparameterize(torch.zeros(1), torch.tensor([150.0]), torch.ones(1))
    assert math.isfinite(z.item()) and z.item() == pytest.approx(math.exp(75), rel=1e-5)


@pytest.mark.parametrize(("call", "error"), [
    pytest.param(lambda r: r.gaussian_kl(HAND_MU, HAND_LOGVAR.float()), TypeError, id="mixed-dtypes"),
    pytest.param(lambda r: r.gaussian_kl(HAND_MU[:0], HAND_LOGVAR[:0]), ValueError, id="empty-batch"),
    pytest.param(lambda r: r.elbo_loss(2 * HAND_MU.new_ones(1, 2), HAND_MU.new_zeros(1, 2), HAND_MU, HAND_LOGVAR),
                 ValueError, id="x-above-one"),
])
def test_contract_violations_raise(
    ref: ModuleType, call: Callable[[ModuleType], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(ref)
