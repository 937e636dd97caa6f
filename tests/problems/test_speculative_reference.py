"""Fast in-process tests of the speculative sampling reference: the statement's hand example and its special cases."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

Q = torch.tensor([[0.125, 0.5, 0.25, 0.125]], dtype=torch.float64)
P = torch.tensor([[0.375, 0.125, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25]], dtype=torch.float64)


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("speculative").reference


def test_residual_of_the_hand_example(ref: ModuleType) -> None:
    torch.testing.assert_close(ref.residual_distribution(P[:1], Q),
                               torch.tensor([[2 / 3, 0, 0, 1 / 3]], dtype=torch.float64))


def test_residual_without_excess_is_a_copy_of_p(ref: ModuleType) -> None:
    out = ref.residual_distribution(Q, Q)
    assert torch.equal(out, Q) and out.data_ptr() != Q.data_ptr()


@pytest.mark.parametrize(("draft", "u", "sample_u", "expected"),
                         [(1, 0.2, 0.6, (1, 2)), (1, 0.3, 0.6, (0, 0)), (1, 0.3, 0.7, (0, 3)), (0, 0.999, 0.1, (1, 0))])
def test_hand_example(
    ref: ModuleType, draft: int, u: float, sample_u: float, expected: tuple[int, int]
) -> None:
    got = ref.speculative_step(P, Q, torch.tensor([draft]), torch.tensor([u], dtype=torch.float64), sample_u)
    assert got == expected and all(type(v) is int for v in got)


def test_a_token_the_target_rules_out_is_never_accepted(ref: ModuleType) -> None:
    p = torch.tensor([[0.0, 1.0], [0.5, 0.5]], dtype=torch.float64)
    q = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    assert ref.speculative_step(p, q, torch.tensor([0]), torch.tensor([0.0]), 0.0) == (0, 1)


def test_rows_that_do_not_sum_to_one_are_refused(ref: ModuleType) -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        ref.residual_distribution(P * 0.5, P)
