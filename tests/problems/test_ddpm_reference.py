"""Fast in-process tests of the DDPM reference: the statement's hand examples, the t = 0 case, Eq. 4 against
sampling the forward chain step by step, and Eq. 7 against Bayes' rule for Gaussians."""

from collections.abc import Callable
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("ddpm").reference  # it imports helpers.py: load_problem makes that work


def test_schedule_ends_and_dtype(ref: ModuleType) -> None:
    betas = ref.linear_beta_schedule(1000)
    assert betas.dtype == torch.float64 and betas.shape == (1000,)
    assert betas[0].item() == pytest.approx(1e-4) and betas[-1].item() == pytest.approx(0.02)
    assert ref.linear_beta_schedule(1, 0.3, 0.5).tolist() == [0.3]


def test_hand_examples(ref: ModuleType) -> None:
    x_t = ref.q_sample(torch.tensor([[1.0, 0.0], [2.0, -1.0]]), torch.tensor([0, 1]),
                       torch.tensor([[0.0, 1.0], [1.0, 1.0]]), torch.tensor([0.64, 0.36]))
    assert x_t.flatten().tolist() == pytest.approx([0.8, 0.6, 2.0, 0.2], abs=1e-6)
    mean, variance = ref.posterior_mean_variance(torch.tensor([[3.0, -1.0], [7.0, 0.0]]),
                                                 torch.tensor([[10.0, 10.0], [0.0, 14.0]]), torch.tensor([0, 1]),
                                                 torch.tensor([0.36, 0.75]))
    assert mean.flatten().tolist() == pytest.approx([3.0, -1.0, 5.0, 3.0], abs=1e-5)
    assert variance[0].item() == 0.0 and variance[1].item() == pytest.approx(9 / 28)


def test_q_sample_is_the_forward_chain_in_one_step(ref: ModuleType) -> None:
    # Running x_{s+1} = sqrt(1 - beta_s) x_s + sqrt(beta_s) eps_s for s = 0..t gives the same mean and variance.
    betas = ref.linear_beta_schedule(6, 0.05, 0.3)
    alphas_cumprod = torch.cumprod(1 - betas, 0)
    generator = torch.Generator().manual_seed(0)
    x = torch.full((200_000,), 2.0, dtype=torch.float64)
    for s in range(4):
        x = (1 - betas[s]).sqrt() * x + betas[s].sqrt() * torch.randn(x.shape, generator=generator, dtype=torch.float64)
    one_step = ref.q_sample(torch.tensor([2.0], dtype=torch.float64), torch.tensor([3]),
                            torch.tensor([0.0], dtype=torch.float64), alphas_cumprod)
    assert x.mean().item() == pytest.approx(one_step.item(), abs=0.01)
    assert x.var().item() == pytest.approx(1 - alphas_cumprod[3].item(), abs=0.01)


def test_posterior_is_bayes_rule(ref: ModuleType) -> None:
    # q(x_{t-1} | x0) = N(sqrt(abar_prev) x0, 1 - abar_prev) and q(x_t | x_{t-1}) = N(sqrt(alpha) x_{t-1}, beta):
    # the product of the two Gaussians in x_{t-1} has precision 1 / (1 - abar_prev) + alpha / beta.
    betas = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    abar = torch.cumprod(1 - betas, 0)
    x0, xt = torch.tensor([[0.7]], dtype=torch.float64), torch.tensor([[-0.4]], dtype=torch.float64)
    mean, variance = ref.posterior_mean_variance(x0, xt, torch.tensor([2]), betas)
    precision = 1 / (1 - abar[1]) + (1 - betas[2]) / betas[2]
    expected_mean = (abar[1].sqrt() * x0 / (1 - abar[1]) + (1 - betas[2]).sqrt() * xt / betas[2]) / precision
    assert variance.item() == pytest.approx(1 / precision.item(), rel=1e-12)
    assert mean.item() == pytest.approx(expected_mean.item(), rel=1e-12)


@pytest.mark.parametrize(("call", "error"), [
    pytest.param(lambda r: r.linear_beta_schedule(True), TypeError, id="bool-T"),
    pytest.param(lambda r: r.linear_beta_schedule(5, 0.03, 0.02), ValueError, id="start-above-end"),
    pytest.param(lambda r: r.q_sample(torch.zeros(2), torch.tensor([0, 2]), torch.zeros(2), torch.ones(2)),
                 ValueError, id="t-out-of-range"),
    pytest.param(lambda r: r.q_sample(torch.zeros(2), torch.tensor([0, 1], dtype=torch.int32), torch.zeros(2),
                                      torch.ones(2)), TypeError, id="t-int32"),
])
def test_contract_violations_raise(
    ref: ModuleType, call: Callable[[ModuleType], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(ref)
