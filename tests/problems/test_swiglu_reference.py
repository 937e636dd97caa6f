"""Fast in-process tests of the SwiGLU reference: the statement's hand example, the extremes and LLaMA's sizes."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

F64 = torch.float64


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("swiglu").reference


def test_hand_example(ref: ModuleType) -> None:
    x = torch.tensor([1.0, 2.0], dtype=F64)
    w_gate = torch.tensor([[1.0, -1.0], [0.0, 1.0]], dtype=F64)
    w_up = torch.tensor([[2.0, 0.0], [1.0, 1.0]], dtype=F64)
    w_down = torch.tensor([[1.0, 1.0], [0.0, 2.0]], dtype=F64)
    hidden = torch.tensor([-2.0 / (1.0 + torch.e), 3.0 * 2.0 / (1.0 + torch.e**-2)], dtype=F64)
    expected = torch.stack([hidden.sum(), 2.0 * hidden[1]])
    torch.testing.assert_close(ref.swiglu_ffn(x, w_gate, w_up, w_down), expected)
    assert ref.swiglu_ffn(x, w_gate, w_up, w_down).tolist() == pytest.approx([4.746900, 10.569565], abs=1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_silu_is_finite_with_finite_gradients_at_the_extremes(ref: ModuleType, dtype: torch.dtype) -> None:
    x = torch.tensor([-1e4, -100.0, 0.0, 100.0, 1e4], dtype=dtype, requires_grad=True)
    y = ref.silu(x)
    y.sum().backward()
    assert y.detach()[[0, 2]].tolist() == [0.0, 0.0]
    assert y.detach()[[3, 4]].tolist() == [100.0, 1e4]
    assert x.grad is not None
    assert x.grad.tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.0], abs=1e-30)


def test_leading_dimensions_and_empty_batch(ref: ModuleType) -> None:
    w_gate, w_up, w_down = torch.randn(5, 3, dtype=F64), torch.randn(5, 3, dtype=F64), torch.randn(3, 5, dtype=F64)
    x = torch.randn(2, 4, 3, dtype=F64)
    whole = ref.swiglu_ffn(x, w_gate, w_up, w_down)
    torch.testing.assert_close(whole[1, 2], ref.swiglu_ffn(x[1, 2], w_gate, w_up, w_down))
    assert ref.swiglu_ffn(torch.zeros(0, 3, dtype=F64), w_gate, w_up, w_down).shape == (0, 3)


def test_mismatched_weights_are_refused(ref: ModuleType) -> None:
    x = torch.randn(2, 3, dtype=F64)
    with pytest.raises(ValueError):
        ref.swiglu_ffn(x, torch.randn(5, 3, dtype=F64), torch.randn(4, 3, dtype=F64), torch.randn(3, 5, dtype=F64))
    with pytest.raises(ValueError):
        ref.swiglu_ffn(x, torch.randn(5, 3, dtype=F64), torch.randn(5, 3, dtype=F64), torch.randn(5, 3, dtype=F64))
    with pytest.raises(TypeError):
        ref.swiglu_ffn(x, torch.randn(5, 3), torch.randn(5, 3, dtype=F64), torch.randn(3, 5, dtype=F64))


@pytest.mark.parametrize(("args", "expected"), [
    ((4096,), 11008), ((5120,), 13824), ((8192,), 22016), ((8192, 4096, 1.3), 28672), ((4096, 1024, 1.3), 14336),
    ((16384, 4096, 1.2), 53248), ((3, 8), 8), ((4, 10), 10), ((10, 1, 1.3), 33),
])
def test_llama_hidden_dim(ref: ModuleType, args: tuple[float, ...], expected: int) -> None:
    value = ref.llama_hidden_dim(*args)
    assert type(value) is int and value == expected


def test_hidden_dim_refuses_a_bool(ref: ModuleType) -> None:
    with pytest.raises(TypeError):
        ref.llama_hidden_dim(True)
