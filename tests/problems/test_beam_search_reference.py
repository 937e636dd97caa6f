"""Fast in-process tests of the beam search reference: the statement's hand example and the cases it defines."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

B = -8.0
HAND = torch.tensor([[B, -0.5, -1.0, -2.0], [B, -2.0, -1.5, -1.75], [B, -1.0, -2.0, -0.25], [B, B, B, B]],
                    dtype=torch.float64)


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("beam_search").reference


@pytest.mark.parametrize(
    ("beam", "max_len", "alpha", "tokens", "score"),
    [
        pytest.param(2, 3, 0.0, [2, 3, -1], -1.25, id="beam-finds-b-eos"),
        pytest.param(1, 3, 0.0, [1, 2, 3], -2.25, id="greedy"),
        pytest.param(2, 1, 0.0, [1], -0.5, id="unfinished-when-time-runs-out"),
        pytest.param(2, 3, 1.0, [2, 3, -1], -1.25 / (7 / 6), id="normalised-score"),
    ],
)
def test_hand_example(
    ref: ModuleType, beam: int, max_len: int, alpha: float, tokens: list[int], score: float
) -> None:
    got_tokens, got_score = ref.beam_search(HAND, 0, 3, beam, max_len, alpha)
    assert got_tokens.tolist() == tokens
    assert got_score.item() == pytest.approx(score, rel=1e-12)


def test_length_penalty_turns_the_choice_to_the_longer_hypothesis(ref: ModuleType) -> None:
    table = torch.tensor([[B, -0.25, B, -1.0], [B, B, -0.5, B], [B, B, B, -0.5], [B, B, B, B]], dtype=torch.float64)
    assert ref.beam_search(table, 0, 3, 2, 4, 0.0)[0].tolist() == [3, -1, -1, -1]
    assert ref.beam_search(table, 0, 3, 2, 4, 1.0)[0].tolist() == [1, 2, 3, -1]


def test_a_finished_hypothesis_keeps_its_slot(ref: ModuleType) -> None:
    table = torch.tensor([[B, -0.25, -3.0, -2.0], [B, -1.0, -0.5, B], [B, B, B, B], [B, B, B, B]], dtype=torch.float64)
    assert ref.beam_search(table, 0, 3, 2, 3)[0].tolist() == [3, -1, -1]


def test_results_are_detached_and_typed(ref: ModuleType) -> None:
    table = torch.log_softmax(torch.randn(4, 4), dim=-1).requires_grad_()
    tokens, score = ref.beam_search(table, 0, 3, 3, 5, 0.6)
    assert tokens.dtype == torch.int64 and tokens.shape == (5,)
    assert score.dtype == torch.float32 and score.shape == () and not score.requires_grad
