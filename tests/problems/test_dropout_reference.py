"""Fast in-process tests of the dropout reference: the hand example and the edge cases the statement fixes."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("dropout").reference  # it imports helpers.py: load_problem makes that work


X = torch.tensor([1.0, 2.0, 3.0, 4.0])
U = torch.tensor([0.1, 0.5, 0.25, 0.9])


def test_hand_example(ref: ModuleType) -> None:
    torch.testing.assert_close(ref.dropout(X, 0.25, U), torch.tensor([0.0, 2 / 0.75, 4.0, 4 / 0.75]))


@pytest.mark.parametrize(("p", "training"), [pytest.param(0.0, True, id="p0"), pytest.param(0.7, False, id="eval")])
def test_identity_cases_are_copies(ref: ModuleType, p: float, training: bool) -> None:
    out = ref.dropout(X, p, U, training)
    assert torch.equal(out, X) and out.data_ptr() != X.data_ptr()


def test_p_one_is_zero_with_zero_gradient(ref: ModuleType) -> None:
    x = X.clone().requires_grad_()
    out = ref.dropout(x, 1.0, U)
    assert torch.equal(out, torch.zeros(4))
    out.sum().backward()
    assert x.grad is not None
    assert torch.equal(x.grad, torch.zeros(4))


def test_dropped_inf_is_zero(ref: ModuleType) -> None:
    out = ref.dropout(torch.tensor([float("inf"), 1.0]), 0.5, torch.tensor([0.1, 0.9]))
    assert out.tolist() == [0.0, 2.0]
