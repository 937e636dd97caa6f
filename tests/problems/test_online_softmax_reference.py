"""Fast in-process tests of the online-softmax reference: the statement's hand examples and its edge cases."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

NEG_INF = float("-inf")


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("online_softmax").reference


def _naive(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        lq, lk = q.shape[-2], k.shape[-2]
        future = torch.arange(lk)[None, :] > torch.arange(lq)[:, None] + (lk - lq)
        scores = scores.masked_fill(future, NEG_INF)
    return torch.softmax(scores, dim=-1) @ v, torch.logsumexp(scores, dim=-1)


def test_softmax_hand_example(ref: ModuleType) -> None:
    x = torch.tensor([[0.0, math.log(2), math.log(3), math.log(4)]], dtype=torch.float64)
    torch.testing.assert_close(ref.online_softmax(x, 3), torch.tensor([[0.1, 0.2, 0.3, 0.4]], dtype=torch.float64))


@pytest.mark.parametrize("block_size", [1, 2, 3, 7, 50])
def test_softmax_equals_torch_for_every_block_size(ref: ModuleType, block_size: int) -> None:
    x = torch.randn(3, 2, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(1)) * 4
    torch.testing.assert_close(ref.online_softmax(x, block_size), torch.softmax(x, dim=-1), rtol=1e-12, atol=1e-14)


def test_masked_entries_leading_block_and_empty_row(ref: ModuleType) -> None:
    x = torch.tensor([[NEG_INF, NEG_INF, 0.0, math.log(3)], [NEG_INF] * 4], requires_grad=True)
    y = ref.online_softmax(x, 2)
    torch.testing.assert_close(y.detach(), torch.tensor([[0.0, 0.0, 0.25, 0.75], [0.0] * 4]))
    (y * torch.arange(8.0).reshape(2, 4)).sum().backward()
    assert x.grad is not None
    assert torch.isfinite(x.grad).all()
    assert x.grad[1].abs().max() == 0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_softmax_stable_at_1e5(ref: ModuleType, dtype: torch.dtype) -> None:
    x = torch.tensor([[1e5 - 1, 1e5], [-1e5, -1e5 - 1]], dtype=dtype)
    expected = torch.softmax(x.double(), dim=-1).to(dtype)
    torch.testing.assert_close(ref.online_softmax(x, 1), expected)


def test_attention_hand_example(ref: ModuleType) -> None:
    q = torch.tensor([[2 * math.log(2), 0.0, 0.0, 0.0], [0.0] * 4], dtype=torch.float64)
    k = torch.tensor([[0.0] * 4, [1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0]], dtype=torch.float64)
    v = torch.tensor([[7.0, 0.0], [0.0, 7.0], [0.0, 0.0]], dtype=torch.float64)
    out, lse = ref.blockwise_attention(q, k, v, 2)
    torch.testing.assert_close(out, torch.tensor([[1.0, 2.0], [7 / 3, 7 / 3]], dtype=torch.float64))
    torch.testing.assert_close(lse, torch.tensor([math.log(7), math.log(3)], dtype=torch.float64))
    out, lse = ref.blockwise_attention(q, k, v, 2, True)  # P = 1: query 0 sees keys 0 and 1
    torch.testing.assert_close(out[0], torch.tensor([7 / 3, 14 / 3], dtype=torch.float64))


@pytest.mark.parametrize(("lq", "p", "block_size", "causal"), [
    (5, 0, 1, True), (5, 0, 2, True), (4, 3, 3, True), (4, 3, 3, False), (3, 2, 10, True), (6, 1, 4, False),
])
def test_attention_equals_naive(ref: ModuleType, lq: int, p: int, block_size: int, causal: bool) -> None:
    generator = torch.Generator().manual_seed(lq * 10 + p)
    q = torch.randn(2, lq, 3, dtype=torch.float64, generator=generator) * 2
    k = torch.randn(2, lq + p, 3, dtype=torch.float64, generator=generator) * 2
    v = torch.randn(2, lq + p, 4, dtype=torch.float64, generator=generator)
    out, lse = ref.blockwise_attention(q, k, v, block_size, causal)
    naive_out, naive_lse = _naive(q, k, v, causal)
    torch.testing.assert_close(out, naive_out, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(lse, naive_lse, rtol=1e-12, atol=1e-12)


def test_first_causal_query_sees_one_key(ref: ModuleType) -> None:
    q, k, v = (torch.randn(4, 3, dtype=torch.float64) for _ in range(3))
    out, _ = ref.blockwise_attention(q, k, v, 3, True)
    torch.testing.assert_close(out[0], v[0])


def test_attention_gradients_match_naive(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(5)
    leaves = [torch.randn(4, 3, dtype=torch.float64, generator=generator) for _ in range(2)]
    leaves.append(torch.randn(6, 3, dtype=torch.float64, generator=generator))
    q, k, v = leaves[0], torch.cat([leaves[1], leaves[2][:2]]), leaves[2]
    cotangents = (torch.randn(4, 3, dtype=torch.float64, generator=generator),
                  torch.randn(4, dtype=torch.float64, generator=generator))
    grads = []
    for function in (lambda a, b, c: ref.blockwise_attention(a, b, c, 4, True), lambda a, b, c: _naive(a, b, c, True)):
        args = [t.clone().requires_grad_() for t in (q, k, v)]
        out, lse = function(*args)
        grads.append(torch.autograd.grad((out, lse), args, cotangents))
    for mine, naive in zip(*grads, strict=True):
        torch.testing.assert_close(mine, naive, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("args", "error"), [
    ((torch.zeros(4, 2), torch.zeros(3, 2), torch.zeros(3, 2), 2, False), ValueError),  # Lk < Lq
    ((torch.zeros(2, 2), torch.zeros(3, 2), torch.zeros(4, 2), 2, False), ValueError),  # k and v disagree
    ((torch.zeros(2, 2), torch.zeros(3, 2), torch.zeros(3, 2), True, False), TypeError),  # a bool block size
    ((torch.zeros(2, 2), torch.zeros(3, 2), torch.zeros(3, 2), 0, False), ValueError),
])
def test_attention_refusals(ref: ModuleType, args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        ref.blockwise_attention(*args)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_softmax_refuses_nan_and_plus_inf(ref: ModuleType, bad: float) -> None:
    with pytest.raises(ValueError):
        ref.online_softmax(torch.tensor([[0.0, bad]]), 1)
