"""Fast in-process tests of the selective scan reference: the statement's worked example, the discretisation
convention, the edge cases it defines, and the parallel form against the recurrence."""

import math
from types import ModuleType

import pytest
import torch

from grader.problems import load_problem

F64 = torch.float64
LN2 = math.log(2.0)


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("selective_scan").reference


def _t(values: object, dtype: torch.dtype = F64) -> torch.Tensor:
    return torch.tensor(values, dtype=dtype)


def _worked_example() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    x = _t([[[1.0], [2.0], [-1.0]]])
    delta = _t([[[1.0], [2.0], [1.0]]])
    A = _t([[-LN2, -2 * LN2]])
    B = _t([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])
    C = _t([[[1.0, 1.0], [2.0, 0.0], [1.0, -1.0]]])
    return x, delta, A, B, C


def _random(seed: int, batch: int, length: int, channels: int, n: int, dtype: torch.dtype = F64) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, length, channels, generator=generator, dtype=F64)
    delta = torch.exp(0.5 * torch.randn(batch, length, channels, generator=generator, dtype=F64))
    A = -torch.exp(0.5 * torch.randn(channels, n, generator=generator, dtype=F64))
    B = torch.randn(batch, length, n, generator=generator, dtype=F64)
    C = torch.randn(batch, length, n, generator=generator, dtype=F64)
    D = torch.randn(channels, generator=generator, dtype=F64)
    h0 = torch.randn(batch, channels, n, generator=generator, dtype=F64)
    return [t.to(dtype) for t in (x, delta, A, B, C, D, h0)]


@pytest.mark.parametrize("name", ["selective_scan", "selective_scan_parallel"])
def test_worked_example(ref: ModuleType, name: str) -> None:
    function = getattr(ref, name)
    y, h = function(*_worked_example())
    torch.testing.assert_close(y, _t([[[1.0], [0.5], [-0.875]]]))
    torch.testing.assert_close(h, _t([[[-0.875, 0.0]]]))
    y, h = function(*_worked_example(), _t([0.5]), _t([[[2.0, -4.0]]]))
    torch.testing.assert_close(y, _t([[[1.5], [2.0], [-1.234375]]]))
    torch.testing.assert_close(h, _t([[[-0.75, -0.015625]]]))


def test_discretize_is_exp_delta_a_and_delta_b(ref: ModuleType) -> None:
    delta = _t([[[0.0, 100.0]]])
    A = _t([[-1.0, -0.5], [-100.0, -100.0]])
    B = _t([[[2.0, -3.0]]])
    A_bar, B_bar = ref.discretize(delta, A, B)
    torch.testing.assert_close(A_bar, _t([[[[1.0, 1.0], [0.0, 0.0]]]]))
    torch.testing.assert_close(B_bar, _t([[[[0.0, 0.0], [200.0, -300.0]]]]))


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5, 8, 13, 16, 17])
def test_parallel_equals_recurrence_for_every_length(ref: ModuleType, length: int) -> None:
    args = _random(length, 2, length, 3, 2)
    y1, h1 = ref.selective_scan(*args)
    y2, h2 = ref.selective_scan_parallel(*args)
    torch.testing.assert_close(y2, y1, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(h2, h1, rtol=1e-12, atol=1e-12)


def test_empty_sequence_returns_a_copy_of_h0(ref: ModuleType) -> None:
    x, delta, A, B, C, D, h0 = _random(3, 2, 0, 3, 2)
    for function in (ref.selective_scan, ref.selective_scan_parallel):
        y, h = function(x, delta, A, B, C, D, h0)
        assert y.shape == (2, 0, 3)
        torch.testing.assert_close(h, h0)
        assert h.data_ptr() != h0.data_ptr()


def test_pieces_continue_the_scan(ref: ModuleType) -> None:
    x, delta, A, B, C, D, h0 = _random(4, 2, 9, 3, 2)
    y, h = ref.selective_scan(x, delta, A, B, C, D, h0)
    y1, h1 = ref.selective_scan_parallel(x[:, :4], delta[:, :4], A, B[:, :4], C[:, :4], D, h0)
    y2, h2 = ref.selective_scan_parallel(x[:, 4:], delta[:, 4:], A, B[:, 4:], C[:, 4:], D, h1)
    torch.testing.assert_close(torch.cat([y1, y2], dim=1), y)
    torch.testing.assert_close(h2, h)


def test_delta_zero_is_identity_and_huge_delta_forgets(ref: ModuleType) -> None:
    x, delta, A, B, C, _, h0 = _random(5, 1, 3, 2, 2)
    delta = delta.clone()
    delta[0, 0] = 0.0
    _, h = ref.selective_scan_parallel(x[:, :1], delta[:, :1], A, B[:, :1], C[:, :1], None, h0)
    torch.testing.assert_close(h, h0)
    delta[0, 0] = 1e6
    _, h = ref.selective_scan_parallel(x[:, :1], delta[:, :1], A, B[:, :1], C[:, :1], None, h0)
    torch.testing.assert_close(h, 1e6 * B[:, 0, None, :] * x[:, 0, :, None])


def test_parallel_stays_finite_and_accurate_after_a_long_decay_in_float32(ref: ModuleType) -> None:
    x, delta, A, B, C, _, h0 = _random(6, 2, 24, 2, 2)
    delta = 0.05 * delta
    delta[:, :8] = 1000.0
    y64, _ = ref.selective_scan(x, delta, A, B, C, None, h0)
    args32 = [t.float() for t in (x, delta, A, B, C)]
    y32, h32 = ref.selective_scan_parallel(*args32, None, h0.float())
    assert torch.isfinite(y32).all() and torch.isfinite(h32).all()
    torch.testing.assert_close(y32[:, 8:].double(), y64[:, 8:], rtol=1e-5, atol=1e-5 * float(y64[:, 8:].abs().max()))


def test_gradients_of_both_forms_agree(ref: ModuleType) -> None:
    args = _random(7, 2, 6, 2, 3)
    generator = torch.Generator().manual_seed(8)
    cotangents = (
        torch.randn(2, 6, 2, generator=generator, dtype=F64),
        torch.randn(2, 2, 3, generator=generator, dtype=F64),
    )
    grads = []
    for function in (ref.selective_scan, ref.selective_scan_parallel):
        leaves = [t.clone().requires_grad_(True) for t in args]
        outputs = function(*leaves)
        grads.append(torch.autograd.grad(outputs, leaves, cotangents))
    for sequential, parallel in zip(*grads, strict=True):
        torch.testing.assert_close(parallel, sequential, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"A": _t([[0.0, -1.0]])}, ValueError),
        ({"delta": _t([[[-0.1], [1.0], [1.0]]])}, ValueError),
        ({"B": _t([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]], dtype=torch.float32)}, TypeError),
        ({"C": _t([[[1.0, 1.0]]])}, ValueError),
    ],
)
def test_refusals(ref: ModuleType, change: dict[str, torch.Tensor], error: type[Exception]) -> None:
    names = ("x", "delta", "A", "B", "C")
    args = dict(zip(names, _worked_example(), strict=True)) | change
    with pytest.raises(error):
        ref.selective_scan(**args)
