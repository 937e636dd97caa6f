"""Fast in-process tests of the sampling reference: the statement's hand example and the cases it defines."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("sampling").reference


HAND = torch.tensor([0.15, 0.5, 0.05, 0.2, 0.1], dtype=torch.float64)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, [0.15, 0.5, 0.05, 0.2, 0.1], id="no-filter"),
        pytest.param({"top_k": 2}, [0, 5 / 7, 0, 2 / 7, 0], id="top-k"),
        pytest.param({"top_p": 0.75}, [0.15 / 0.85, 0.5 / 0.85, 0, 0.2 / 0.85, 0], id="top-p-keeps-crossing"),
        pytest.param({"temperature": 0}, [0, 1, 0, 0, 0], id="greedy"),
        pytest.param({"top_p": 0.0}, [0, 1, 0, 0, 0], id="top-p-zero"),
        pytest.param({"top_k": 99}, [0.15, 0.5, 0.05, 0.2, 0.1], id="top-k-beyond-vocab"),
    ],
)
def test_hand_example(ref: ModuleType, options: dict[str, float], expected: list[float]) -> None:
    torch.testing.assert_close(ref.sampling_probs(HAND.log(), **options),
                               torch.tensor(expected, dtype=torch.float64))


@pytest.mark.parametrize(("u", "options", "token"), [(0.1, {}, 0), (0.66, {}, 2), (0.95, {}, 4),
                                                     (0.0, {"top_k": 2}, 1), (0.72, {"top_k": 2}, 3)])
def test_draw_inverts_the_cdf_in_vocabulary_order(
    ref: ModuleType, u: float, options: dict[str, float], token: int
) -> None:
    assert ref.sample(HAND.log(), torch.tensor(u, dtype=torch.float64), **options).item() == token


def test_equal_logits_keep_the_smaller_indices(ref: ModuleType) -> None:
    probs = ref.sampling_probs(torch.tensor([1.0, 2.0, 2.0, 2.0, 0.0]), top_k=2)
    assert probs.tolist() == [0.0, 0.5, 0.5, 0.0, 0.0]


def test_rounding_below_one_draws_the_last_kept_token(ref: ModuleType) -> None:
    logits = torch.tensor([-1.75, -1.75, -0.25, -5.0])
    assert float(ref.sampling_probs(logits, top_k=3).cumsum(0)[-1]) < 1  # the case the check relies on
    assert ref.sample(logits, torch.tensor(0.99999999, dtype=torch.float64), top_k=3).item() == 2


def test_vanishing_temperature_is_greedy_and_finite(ref: ModuleType) -> None:
    probs = ref.sampling_probs(torch.tensor([0.0, 5.0, -5.0, 4.0]), 1e-40)
    assert probs.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_results_never_require_grad(ref: ModuleType) -> None:
    logits = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
    assert not ref.sampling_probs(logits, 0.7, 3, 0.9).requires_grad
    assert ref.sample(logits, torch.full((2,), 0.5)).dtype == torch.int64
