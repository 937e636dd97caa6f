"""Fast in-process tests of the clip_grad_norm reference: the hand example, PyTorch away from the threshold,
and the overflow-safe norm."""

from types import ModuleType

import pytest
import torch

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("clip_grad_norm").reference  # it imports helpers.py: load_problem makes that work


def test_hand_example(ref: ModuleType) -> None:
    clipped, norm = ref.clip_grad_norm([torch.tensor([3.0, 4.0]), None, torch.tensor([[12.0]])], 6.5, 0.0)
    assert norm.item() == 13.0
    assert clipped[0].tolist() == [1.5, 2.0] and clipped[1] is None and clipped[2].tolist() == [[6.0]]


@pytest.mark.parametrize("max_norm", [0.1, 1.0, 100.0])
def test_matches_torch_away_from_threshold(ref: ModuleType, max_norm: float) -> None:
    generator = torch.Generator().manual_seed(3)
    grads = [torch.randn(5, generator=generator, dtype=torch.float64), torch.randn(2, 3, generator=generator,
                                                                                   dtype=torch.float64)]
    params = [torch.zeros_like(g, requires_grad=True) for g in grads]
    for p, g in zip(params, grads, strict=True):
        p.grad = g.clone()
    expected_norm = torch.nn.utils.clip_grad_norm_(params, max_norm)
    clipped, norm = ref.clip_grad_norm(grads, max_norm)
    torch.testing.assert_close(norm, expected_norm)
    for c, p in zip(clipped, params, strict=True):
        torch.testing.assert_close(c, p.grad)


def test_no_overflow_in_float32(ref: ModuleType) -> None:
    _, norm = ref.clip_grad_norm([torch.full((2,), 1e30)], 1.0)
    assert norm.item() == pytest.approx(2**0.5 * 1e30, rel=1e-6)


def test_overflowing_norm_refused(ref: ModuleType) -> None:
    with pytest.raises(ValueError):
        ref.clip_grad_norm([torch.full((4,), 3e38)], 1.0)
