"""Fast in-process tests of the distillation reference: the hand examples and F.kl_div with batchmean."""

import math
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from grader.problems import load_problem


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("distillation").reference  # it imports helpers.py: load_problem makes that work


KL = 0.75 * math.log(1.5) + 0.25 * math.log(0.5)


@pytest.mark.parametrize(("scale", "temperature", "expected"), [
    pytest.param(1, 1, 0.5 * KL + 0.5 * math.log(2), id="T1"),
    pytest.param(2, 2, 0.5 * 4 * KL + 0.5 * math.log(2), id="T2-squared"),
])
def test_hand_examples(ref: ModuleType, scale: float, temperature: float, expected: float) -> None:
    teacher = torch.tensor([[scale * math.log(3.0), 0.0]], dtype=torch.float64)
    loss = ref.distillation_loss(torch.zeros(1, 2, dtype=torch.float64), teacher, torch.tensor([0]), temperature, 0.5)
    assert loss.item() == pytest.approx(expected, rel=1e-12)


def test_matches_kl_div_batchmean_and_teacher_detached(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(4)
    student = torch.randn(5, 7, generator=generator, dtype=torch.float64, requires_grad=True)
    teacher = torch.randn(5, 7, generator=generator, dtype=torch.float64, requires_grad=True)
    target = torch.randint(0, 7, (5,), generator=generator)
    loss = ref.distillation_loss(student, teacher, target, 3.0, 0.8)
    expected = 0.8 * 9 * F.kl_div(F.log_softmax(student / 3, dim=1), F.softmax(teacher / 3, dim=1),
                                  reduction="batchmean") + 0.2 * F.cross_entropy(student, target)
    assert loss.item() == pytest.approx(expected.item(), rel=1e-12)
    loss.backward()
    assert student.grad is not None and teacher.grad is None
