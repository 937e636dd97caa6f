"""Fast in-process tests of the sliding-window reference: the statement's hand examples and its special cases."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("sliding_window").reference


def _bools(rows: list[list[int]] | list[list[list[int]]]) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.bool)


def test_the_hand_mask_keeps_each_query_and_the_one_before(ref: ModuleType) -> None:
    assert torch.equal(ref.sliding_window_mask(4, 2), _bools([[1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]))


@pytest.mark.parametrize(("T", "window"), [(6, 1), (6, 3), (6, 6), (5, 9), (1, 1)])
def test_a_query_far_from_the_start_keeps_exactly_window_keys(ref: ModuleType, T: int, window: int) -> None:
    mask = ref.sliding_window_mask(T, window)
    assert mask.sum(dim=1).tolist() == [min(i + 1, window) for i in range(T)]
    assert not mask.triu(diagonal=1).any()  # never a later key


def test_edges_of_the_window(ref: ModuleType) -> None:
    assert torch.equal(ref.sliding_window_mask(5, 1), torch.eye(5, dtype=torch.bool))
    assert torch.equal(ref.sliding_window_mask(5, 7), torch.ones(5, 5, dtype=torch.bool).tril())
    assert ref.sliding_window_mask(0, 3).shape == (0, 0)


def test_padding_removes_key_columns_only(ref: ModuleType) -> None:
    combined = ref.combine_with_padding(ref.sliding_window_mask(4, 2), _bools([[0, 1, 1, 1]]))
    assert torch.equal(combined, _bools([[[0, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]]]))


def test_equal_logits_average_the_window(ref: ModuleType) -> None:
    zeros = torch.zeros(1, 1, 4, 2, dtype=torch.float64)
    v = torch.tensor([1.0, 2.0, 4.0, 8.0], dtype=torch.float64).reshape(1, 1, 4, 1)
    assert ref.windowed_attention(zeros, zeros, v, 2).flatten().tolist() == [1.0, 1.5, 3.0, 6.0]
    padded = ref.windowed_attention(zeros, zeros, v, 2, _bools([[0, 1, 1, 1]]))
    assert padded.flatten().tolist() == [0.0, 2.0, 3.0, 6.0]


def test_the_scale_example(ref: ModuleType) -> None:
    q = torch.tensor([[0.5, -1.0, 2.0, 0.0], [0.0, 2 * math.log(3.0), 0.0, 0.0]], dtype=torch.float64)
    k = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], dtype=torch.float64)
    v = torch.eye(2, dtype=torch.float64)
    out = ref.windowed_attention(q.reshape(1, 1, 2, 4), k.reshape(1, 1, 2, 4), v.reshape(1, 1, 2, 2), 2)
    torch.testing.assert_close(out.reshape(2, 2), torch.tensor([[1.0, 0.0], [0.25, 0.75]], dtype=torch.float64))


def test_a_query_with_no_allowed_key_gives_zeros_and_zero_gradient(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 1, 4, 3, generator=generator, dtype=torch.float64, requires_grad=True)
               for _ in range(3))
    key_padding = _bools([[0, 0, 1, 1], [0, 0, 0, 0]])
    out = ref.windowed_attention(q, k, v, 2, key_padding)
    assert out[0, :, :2].abs().max() == 0 and out[1].abs().max() == 0
    out.sum().backward()
    for t in (q, k, v):
        assert t.grad is not None
        assert torch.isfinite(t.grad).all()
        assert t.grad[1].abs().max() == 0


def test_a_wide_window_is_plain_causal_attention(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 5, 3, generator=generator, dtype=torch.float64) for _ in range(3))
    scores = (q @ k.mT / math.sqrt(3)).masked_fill(~torch.ones(5, 5, dtype=torch.bool).tril(), float("-inf"))
    torch.testing.assert_close(ref.windowed_attention(q, k, v, 5), torch.softmax(scores, dim=-1) @ v)
    torch.testing.assert_close(ref.windowed_attention(q, k, v, 1), v)


@pytest.mark.parametrize(("args", "error"), [((3, 0), ValueError), ((-1, 2), ValueError), ((3, True), TypeError),
                                             ((3.0, 2), TypeError)])
def test_refusals_of_the_mask(ref: ModuleType, args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.sliding_window_mask(*args)


def test_integer_padding_is_refused(ref: ModuleType) -> None:
    with pytest.raises(TypeError):
        ref.combine_with_padding(ref.sliding_window_mask(3, 2), torch.ones(1, 3, dtype=torch.int64))
