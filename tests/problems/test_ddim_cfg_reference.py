"""Fast in-process tests of the DDIM + classifier-free guidance reference: the statement's hand examples, the
schedule's edge cases, eta = 1 against DDPM's posterior, the last step, and the refusals."""

import math
from collections.abc import Callable
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("ddim_cfg").reference  # it imports helpers.py: load_problem makes that work


def test_schedule_hand_example_and_edges(ref: ModuleType) -> None:
    steps, prev = ref.ddim_timesteps(10, 3)
    assert steps.tolist() == [6, 3, 0] and prev.tolist() == [3, 0, -1]
    assert steps.dtype == prev.dtype == torch.int64
    assert ref.ddim_timesteps(1000, 3)[0].tolist() == [666, 333, 0]  # exactly S steps, not range(0, 1000, 333)
    assert ref.ddim_timesteps(1, 1)[1].tolist() == [-1]
    every, after = ref.ddim_timesteps(5, 5)
    assert every.tolist() == [4, 3, 2, 1, 0] and after.tolist() == [3, 2, 1, 0, -1]


def test_step_hand_example(ref: ModuleType) -> None:
    x_t, eps, noise = (torch.tensor(v, dtype=torch.float64) for v in ([1.4, -0.2], [1.0, 0.5], [1.0, -1.0]))
    assert ref.ddim_step(x_t, eps, 0.36, 0.64).tolist() == pytest.approx([1.4, -0.5], abs=1e-12)
    sigma = math.sqrt(63 / 256)
    stochastic = ref.ddim_step(x_t, eps, 0.36, 0.64, 1.0, noise)
    assert stochastic.tolist() == pytest.approx([0.8 + 0.3375 + sigma, -0.8 + 0.16875 - sigma], abs=1e-12)
    assert ref.ddim_step(x_t, eps, 0.36, 1.0, 1.0, noise).tolist() == pytest.approx([1.0, -1.0], abs=1e-12)


def test_eta_one_is_the_ddpm_posterior(ref: ModuleType) -> None:
    # For a jump with beta = 1 - a / p: mean sqrt(p) beta / (1 - a) x0 + sqrt(a / p) (1 - p) / (1 - a) x_t and
    # variance (1 - p) / (1 - a) beta, at x0 = x0_hat.
    generator = torch.Generator().manual_seed(0)
    x_t, eps, noise = (torch.randn(7, generator=generator, dtype=torch.float64) for _ in range(3))
    a, p = 0.2, 0.55
    beta = 1 - a / p
    x0 = (x_t - math.sqrt(1 - a) * eps) / math.sqrt(a)
    mean = math.sqrt(p) * beta / (1 - a) * x0 + math.sqrt(a / p) * (1 - p) / (1 - a) * x_t
    expected = mean + math.sqrt((1 - p) / (1 - a) * beta) * noise
    assert torch.allclose(ref.ddim_step(x_t, eps, a, p, 1.0, noise), expected, rtol=1e-12, atol=1e-12)


def test_eta_zero_ignores_noise_and_lands_on_the_forward_process(ref: ModuleType) -> None:
    x0, e = torch.tensor([3.0, -2.0], dtype=torch.float64), torch.tensor([0.5, 1.5], dtype=torch.float64)
    x_t = math.sqrt(0.3) * x0 + math.sqrt(0.7) * e
    without = ref.ddim_step(x_t, e, 0.3, 0.8)
    assert torch.equal(without, ref.ddim_step(x_t, e, 0.3, 0.8, 0.0, torch.full((2,), 1e6, dtype=torch.float64)))
    assert torch.allclose(without, math.sqrt(0.8) * x0 + math.sqrt(0.2) * e, rtol=1e-12, atol=1e-12)


def test_guidance_hand_example(ref: ModuleType) -> None:
    cond, uncond = torch.tensor([1.0, 0.0]), torch.tensor([0.5, 2.0])
    assert ref.classifier_free_guidance(cond, uncond, 2).tolist() == [2.0, -4.0]
    zero = ref.classifier_free_guidance(cond, uncond, 0.0)
    assert zero.tolist() == [1.0, 0.0] and zero.data_ptr() != cond.data_ptr()


@pytest.mark.parametrize(
    ("call", "error"),
    [
        pytest.param(lambda r: r.ddim_timesteps(10, 11), ValueError, id="more-sampling-than-training"),
        pytest.param(lambda r: r.ddim_timesteps(10.0, 2), TypeError, id="float-count"),
        pytest.param(lambda r: r.ddim_step(torch.zeros(2), torch.zeros(2), 0.6, 0.4), ValueError, id="prev-below-t"),
        pytest.param(
            lambda r: r.ddim_step(torch.zeros(2), torch.zeros(2), 0.3, 0.6, 0.5), ValueError, id="eta-without-noise"
        ),
        pytest.param(
            lambda r: r.classifier_free_guidance(torch.zeros(2), torch.zeros(2), -1.0), ValueError, id="negative-w"
        ),
    ],
)
def test_contract_violations_raise(
    ref: ModuleType, call: Callable[[ModuleType], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(ref)
