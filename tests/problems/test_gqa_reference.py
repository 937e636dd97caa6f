"""Fast in-process tests of the grouped-query attention reference: the statement's hand examples and its cases."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

L3 = 2 * math.log(3)
Q = torch.tensor([[[L3, 0.0, 0.0, 0.0]], [[0.0] * 4], [[0.0, L3, 0.0, 0.0]], [[0.0] * 4]], dtype=torch.float64)
K = torch.tensor([[[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]] * 2, dtype=torch.float64)
V = torch.tensor([[[1.0, 0.0], [0.0, 1.0]], [[10.0, 0.0], [0.0, 10.0]]], dtype=torch.float64)


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("gqa").reference


def test_hand_example_shares_contiguous_groups(ref: ModuleType) -> None:
    expected = torch.tensor([[[0.75, 0.25]], [[0.5, 0.5]], [[2.5, 7.5]], [[5.0, 5.0]]], dtype=torch.float64)
    torch.testing.assert_close(ref.grouped_query_attention(Q, K, V), expected)


def test_hand_example_with_a_mask_per_query_head(ref: ModuleType) -> None:
    mask = torch.tensor([[[True, False]], [[False, False]], [[False, True]], [[True, True]]])
    expected = torch.tensor([[[1.0, 0.0]], [[0.0, 0.0]], [[0.0, 10.0]], [[5.0, 5.0]]], dtype=torch.float64)
    torch.testing.assert_close(ref.grouped_query_attention(Q, K, V, mask), expected)


@pytest.mark.parametrize(("heads", "groups"), [(8, 2), (8, 4), (6, 3), (4, 1), (3, 3)])
def test_query_head_h_reads_key_value_head_h_over_r(ref: ModuleType, heads: int, groups: int) -> None:
    q = torch.randn(heads, 2, 4, dtype=torch.float64)
    k = torch.randn(groups, 3, 4, dtype=torch.float64)
    v = (torch.arange(groups, dtype=torch.float64) + 1).reshape(groups, 1, 1).expand(groups, 3, 1)
    read = ref.grouped_query_attention(q, k, v)[:, 0, 0].round().long() - 1
    assert read.tolist() == [h // (heads // groups) for h in range(heads)]


def test_key_value_gradient_is_the_sum_over_the_group(ref: ModuleType) -> None:
    q = torch.randn(4, 3, 2, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 5, 2, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 5, 3, dtype=torch.float64, requires_grad=True)
    ref.grouped_query_attention(q, k, v).sum().backward()
    copies_k = k.detach().expand(4, 5, 2).clone().requires_grad_(True)
    copies_v = v.detach().expand(4, 5, 3).clone().requires_grad_(True)
    ref.grouped_query_attention(q.detach(), copies_k, copies_v).sum().backward()
    assert copies_k.grad is not None and copies_v.grad is not None
    torch.testing.assert_close(k.grad, copies_k.grad.sum(dim=0, keepdim=True))
    torch.testing.assert_close(v.grad, copies_v.grad.sum(dim=0, keepdim=True))


def test_no_allowed_key_gives_zeros_and_zero_gradient(ref: ModuleType) -> None:
    q = torch.randn(2, 1, 3, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 4, 3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 4, 2, dtype=torch.float64, requires_grad=True)
    out = ref.grouped_query_attention(q, k, v, torch.zeros(4, dtype=torch.bool))
    out.sum().backward()
    assert out.detach().abs().max() == 0
    assert all(t.grad is not None and torch.count_nonzero(t.grad) == 0 for t in (q, k, v))
    empty = ref.grouped_query_attention(q.detach(), k.detach()[:, :0], v.detach()[:, :0])
    assert empty.shape == (2, 1, 2) and empty.abs().max() == 0


def test_large_logits_stay_finite_in_float32(ref: ModuleType) -> None:
    key = torch.tensor([100.0, 100.0, 0.0, 0.0])
    k = torch.stack([key, key, -key])[None]
    v = torch.tensor([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    q = torch.stack([key, -key])[:, None]
    torch.testing.assert_close(ref.grouped_query_attention(q, k, v), torch.tensor([[[2.0, 3.0]], [[100.0, 100.0]]]))


@pytest.mark.parametrize(("heads", "groups"), [(6, 4), (3, 2), (2, 4)])
def test_a_group_count_that_does_not_divide_the_heads_is_refused(ref: ModuleType, heads: int, groups: int) -> None:
    with pytest.raises(ValueError, match="divide"):
        ref.grouped_query_attention(torch.zeros(heads, 1, 2), torch.zeros(groups, 1, 2), torch.zeros(groups, 1, 2))


def test_pooling_hand_example(ref: ModuleType) -> None:
    w = torch.arange(1.0, 9.0)[:, None] * torch.tensor([1.0, 10.0])
    expected = torch.tensor([[2.0, 20.0], [3.0, 30.0], [6.0, 60.0], [7.0, 70.0]])
    torch.testing.assert_close(ref.mean_pool_kv_heads(w, 4, 2), expected)


def test_pooling_at_g_equals_h_copies_and_at_g_one_averages_everything(ref: ModuleType) -> None:
    w = torch.randn(12, 5, dtype=torch.float64)
    same = ref.mean_pool_kv_heads(w, 4, 4)
    torch.testing.assert_close(same, w)
    assert same.untyped_storage().data_ptr() != w.untyped_storage().data_ptr()
    torch.testing.assert_close(ref.mean_pool_kv_heads(w, 4, 1), w.reshape(4, 3, 5).mean(dim=0))


@pytest.mark.parametrize(("args", "error"), [
    ((torch.ones(12, 3), 6, 4), ValueError), ((torch.ones(12, 3), 5, 5), ValueError),
    ((torch.ones(12, 3), 6, 0), ValueError), ((torch.ones(12, 3), 6, True), TypeError),
    ((torch.ones(12, 3, dtype=torch.int64), 6, 2), TypeError),
])
def test_pooling_refusals(ref: ModuleType, args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.mean_pool_kv_heads(*args)
