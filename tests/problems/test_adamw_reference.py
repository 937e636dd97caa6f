"""Fast in-process tests of the adamw reference: the hand example and agreement with torch.optim.AdamW."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("adamw").reference  # it imports helpers.py: load_problem makes that work


def test_hand_example(ref: ModuleType) -> None:
    zeros = torch.zeros(2, dtype=torch.float64)
    param, m, v = ref.adamw_step(torch.tensor([1.0, -2.0], dtype=torch.float64),
                                 torch.tensor([0.5, -0.1], dtype=torch.float64), zeros, zeros, 1, 0.1)
    assert param.tolist() == pytest.approx([0.999 - 0.1 * 0.5 / (0.5 + 1e-8), -1.998 + 0.1 * 0.1 / (0.1 + 1e-8)])
    assert m.tolist() == pytest.approx([0.05, -0.01])
    assert v.tolist() == pytest.approx([0.00025, 0.00001])


def test_trajectory_matches_torch_adamw(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    start = torch.randn(4, 3, generator=generator, dtype=torch.float64)
    weights = start.clone().requires_grad_()
    optimiser = torch.optim.AdamW([weights], lr=0.01, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.3)
    param, m, v = start.clone(), torch.zeros_like(start), torch.zeros_like(start)
    for step in range(1, 21):
        grad = torch.randn(4, 3, generator=generator, dtype=torch.float64)
        param, m, v = ref.adamw_step(param, grad, m, v, step, 0.01, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.3)
        weights.grad = grad.clone()
        optimiser.step()
    torch.testing.assert_close(param, weights.detach(), rtol=1e-12, atol=1e-12)


def test_inputs_untouched_and_results_detached(ref: ModuleType) -> None:
    param = torch.ones(3, dtype=torch.float64, requires_grad=True)
    grad = torch.ones(3, dtype=torch.float64)
    m, v = torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    out = ref.adamw_step(param, grad, m, v, 1, 0.1)
    assert all(not t.requires_grad for t in out)
    assert m.eq(0).all() and v.eq(0).all() and param.detach().eq(1).all()
