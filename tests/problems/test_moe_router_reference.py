"""Fast in-process tests of the mixture-of-experts reference: the statement's hand example and its cases."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

PROBS = torch.tensor([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.7, 0.2, 0.1], [0.5, 0.25, 0.25]], dtype=torch.float64)
EXPERTS = torch.tensor([[0, 1], [1, 2], [0, 1], [0, 1]])


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("moe_router").reference


def test_gates_of_the_hand_example(ref: ModuleType) -> None:
    expected = torch.tensor([[0.625, 0.375, 0], [0, 2 / 3, 1 / 3], [7 / 9, 2 / 9, 0], [2 / 3, 1 / 3, 0]],
                            dtype=torch.float64)
    torch.testing.assert_close(ref.top_k_gating(PROBS.log(), 2), expected)


@pytest.mark.parametrize(("capacity", "kept"), [
    (1, [[True, False], [True, True], [False, False], [False, False]]),
    (2, [[True, True], [True, True], [True, False], [False, False]]),
    (0, [[False, False]] * 4),
])
def test_capacity_serves_choice_by_choice(ref: ModuleType, capacity: int, kept: list[list[bool]]) -> None:
    assert ref.capacity_mask(EXPERTS, 3, capacity).tolist() == kept


@pytest.mark.parametrize(("k", "loss"), [(2, 1.0921875), (1, 1.265625)])
def test_loss_of_the_hand_example(ref: ModuleType, k: int, loss: float) -> None:
    assert ref.load_balancing_loss(PROBS.log(), k).item() == pytest.approx(loss, rel=1e-12)


def test_an_even_load_gives_exactly_one(ref: ModuleType) -> None:
    logits = torch.eye(4, dtype=torch.float64).repeat(3, 1) * 3.0
    assert ref.load_balancing_loss(logits, 1).item() == pytest.approx(1.0, abs=1e-12)


def test_at_k_one_the_gate_is_one_and_carries_no_gradient(ref: ModuleType) -> None:
    logits = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    gates = ref.top_k_gating(logits, 1)
    (gates * torch.randn(5, 4, dtype=torch.float64)).sum().backward()
    assert gates.detach().sum(dim=1).tolist() == [1.0] * 5
    assert logits.grad is not None
    assert torch.count_nonzero(logits.grad) == 0
