"""Fast in-process tests of the key/value cache reference: the statement's hand examples and its edge cases."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

Q = torch.tensor([[1.0, 0.0, 0.0, 0.0]] * 3, dtype=torch.float64)[None, None]
K = torch.tensor([[0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0], [2 * math.log(2), 0.0, 0.0, 0.0]],
                 dtype=torch.float64)[None, None]
V = torch.tensor([[3.0, 1.0], [0.0, 1.0], [6.0, 1.0]], dtype=torch.float64)[None, None]


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("kv_cache").reference


@pytest.fixture(scope="module")
def helpers() -> ModuleType:
    module = load_problem("kv_cache").helpers_module
    assert module is not None  # kv_cache has a helpers.py
    return module


def _full_causal(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    length = q.shape[2]
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])).masked_fill(
        torch.ones(length, length, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


@pytest.mark.parametrize(("count", "rows"), [
    (1, [[3.75, 1.0]]),
    (2, [[1.5, 1.0], [3.75, 1.0]]),
    (3, [[3.0, 1.0], [1.5, 1.0], [3.75, 1.0]]),
])
def test_the_hand_example_queries_are_the_last_positions_of_the_cache(
    ref: ModuleType, count: int, rows: list[list[float]]
) -> None:
    out = ref.cached_attention(Q[:, :, 3 - count:], K, V)
    torch.testing.assert_close(out, torch.tensor(rows, dtype=torch.float64)[None, None])


def test_append_puts_the_new_positions_after_the_old_ones_in_each_head(ref: ModuleType) -> None:
    cache_k = torch.arange(1.0, 9.0).reshape(1, 2, 2, 2)
    cache_v = torch.arange(11.0, 23.0).reshape(1, 2, 2, 3)
    k_new = torch.arange(101.0, 105.0).reshape(1, 2, 1, 2)
    v_new = torch.arange(111.0, 117.0).reshape(1, 2, 1, 3)
    grown_k, grown_v = ref.append_kv(cache_k, cache_v, k_new, v_new)
    assert grown_k.tolist() == [[[[1, 2], [3, 4], [101, 102]], [[5, 6], [7, 8], [103, 104]]]]
    assert grown_v.shape == (1, 2, 3, 3) and grown_v[0, 1, 2].tolist() == [114, 115, 116]


def test_appending_nothing_or_to_nothing_gives_new_tensors(ref: ModuleType) -> None:
    k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4, 6)
    for args in ((k, v, k[:, :, :0], v[:, :, :0]), (k[:, :, :0], v[:, :, :0], k, v)):
        grown_k, grown_v = ref.append_kv(*args)
        torch.testing.assert_close(grown_k, k, rtol=0, atol=0)
        assert grown_k.data_ptr() != k.data_ptr() and grown_v.data_ptr() != v.data_ptr()


def test_a_decode_loop_equals_full_causal_attention_at_every_step(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, 11, 3, generator=generator, dtype=torch.float64) for _ in range(3))
    full = _full_causal(q, k, v)
    cache_k, cache_v, start = k[:, :, :0], v[:, :, :0], 0
    for count in (3, 1, 1, 3, 1, 2):
        end = start + count
        out, cache_k, cache_v = ref.decode_step(cache_k, cache_v, q[:, :, start:end], k[:, :, start:end],
                                                v[:, :, start:end])
        torch.testing.assert_close(out, full[:, :, start:end])
        assert torch.equal(cache_k, k[:, :, :end]) and torch.equal(cache_v, v[:, :, :end])
        start = end


def test_a_prefill_of_one_token_returns_its_value(ref: ModuleType) -> None:
    q, k, v = torch.randn(1, 2, 1, 3), torch.randn(1, 2, 1, 3), torch.randn(1, 2, 1, 4)
    out, cache_k, _ = ref.decode_step(k[:, :, :0], v[:, :, :0], q, k, v)
    torch.testing.assert_close(out, v)
    assert torch.equal(cache_k, k)


def test_no_queries_give_an_empty_result(ref: ModuleType) -> None:
    out = ref.cached_attention(Q[:, :, :0], K, V)
    assert out.shape == (1, 1, 0, 2)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logits_of_1e4_stay_finite(ref: ModuleType, dtype: torch.dtype) -> None:
    key = torch.tensor([100.0, 100.0, 0.0, 0.0], dtype=dtype)
    k = torch.stack([key, key, -key])[None, None]
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]], dtype=dtype)[None, None]
    out = ref.cached_attention(torch.stack([-key, key])[None, None], k, v)
    torch.testing.assert_close(out, torch.tensor([[2.0, 3.0], [2.0, 3.0]], dtype=dtype)[None, None])


def test_no_gradient_reaches_a_key_after_the_query(ref: ModuleType) -> None:
    q = torch.randn(1, 1, 2, 3, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 1, 4, 3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 1, 4, 2, dtype=torch.float64, requires_grad=True)
    ref.cached_attention(q, k, v)[:, :, 0].sum().backward()  # query 0 sits at position 2
    assert k.grad is not None and v.grad is not None
    assert torch.count_nonzero(k.grad[:, :, 3]) == 0 and torch.count_nonzero(v.grad[:, :, 3]) == 0
    assert torch.count_nonzero(k.grad[:, :, :3]) > 0


def test_mismatched_sizes_and_too_many_queries_are_refused(ref: ModuleType) -> None:
    q, k, v = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4, 5), torch.randn(2, 3, 4, 6)
    for args in ((q[:1], k, v), (q[:, :1], k, v), (q, k[:, :, :3], v[:, :, :3]), (q, k, v[:, :, :3])):
        with pytest.raises(ValueError):
            ref.cached_attention(*args)
    with pytest.raises(TypeError):
        ref.cached_attention(q.double(), k, v)
    with pytest.raises(ValueError):
        ref.decode_step(k, v, q[:, :, :2], k[:, :, :1], v[:, :, :1])


def test_the_helpers_name_the_symbol_that_disagrees(helpers: ModuleType) -> None:
    with pytest.raises(ValueError, match="H = 1"):
        helpers.check_append(torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4), torch.randn(1, 1, 1, 4),
                             torch.randn(1, 1, 1, 4))
