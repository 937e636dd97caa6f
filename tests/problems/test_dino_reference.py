"""Fast in-process tests of the DINO reference: the statement's hand examples, agreement with the original
implementation's layout (concatenated views, a double loop skipping v == iq), and what is detached."""

import math
from collections.abc import Callable
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from grader.problems import load_problem

LN2, LN3 = math.log(2), math.log(3)


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load_problem("dino").reference  # it imports helpers.py: load_problem makes that work


CENTER = torch.tensor([0.5, -0.5, 0.0], dtype=torch.float64)
TEACHER = [CENTER[None] + torch.tensor([[0.04 * LN2, 0.0, 0.0]], dtype=torch.float64), CENTER[None].clone()]
STUDENT = [torch.zeros(1, 3, dtype=torch.float64), torch.tensor([[0.1 * LN2, 0.0, 0.0]], dtype=torch.float64),
           torch.tensor([[0.0, 0.0, 0.1 * LN2]], dtype=torch.float64)]


def test_hand_examples(ref: ModuleType) -> None:
    assert ref.dino_loss(STUDENT[:2], TEACHER, CENTER).item() == pytest.approx((1.5 * LN2 + LN3) / 2, rel=1e-12)
    four = (1.5 * LN2 + LN3 + 1.75 * LN2 + 5 / 3 * LN2) / 4
    assert ref.dino_loss(STUDENT, TEACHER, CENTER).item() == pytest.approx(four, rel=1e-12)
    center = ref.update_center(torch.tensor([1.0, 0.0]), [torch.tensor([[2.0, 2.0]]), torch.tensor([[0.0, 4.0]])])
    assert center.tolist() == pytest.approx([1.0, 0.3])


def _original_layout(
    student: list[torch.Tensor], teacher: list[torch.Tensor], center: torch.Tensor, ts: float = 0.1, tt: float = 0.04
) -> torch.Tensor:
    student_out = (torch.cat(student) / ts).chunk(len(student))
    teacher_out = F.softmax((torch.cat(teacher) - center) / tt, dim=-1).detach().chunk(2)
    total: float | torch.Tensor = 0.0
    terms = 0
    for iq, q in enumerate(teacher_out):
        for v in range(len(student_out)):
            if v == iq:
                continue
            total = total + torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1).mean()
            terms += 1
    assert isinstance(total, torch.Tensor)  # at least one term was added
    return total / terms


def test_matches_the_original_layout_and_detaches_the_teacher(ref: ModuleType) -> None:
    generator = torch.Generator().manual_seed(3)
    student = [torch.randn(4, 6, generator=generator, dtype=torch.float64, requires_grad=True) for _ in range(5)]
    teacher = [torch.randn(4, 6, generator=generator, dtype=torch.float64, requires_grad=True) for _ in range(2)]
    center = torch.randn(6, generator=generator, dtype=torch.float64, requires_grad=True)
    loss = ref.dino_loss(student, teacher, center)
    assert loss.item() == pytest.approx(_original_layout(student, teacher, center).item(), rel=1e-12)
    loss.backward()
    assert all(s.grad is not None for s in student)
    assert all(t.grad is None for t in teacher) and center.grad is None
    assert not ref.update_center(center, teacher).requires_grad


@pytest.mark.parametrize(("call", "error"), [
    pytest.param(lambda r: r.dino_loss(STUDENT[:1], TEACHER, CENTER), ValueError, id="one-student-view"),
    pytest.param(lambda r: r.dino_loss(STUDENT, TEACHER[:1], CENTER), ValueError, id="one-teacher-view"),
    pytest.param(lambda r: r.dino_loss(STUDENT, TEACHER, CENTER, True, 0.04), TypeError, id="bool-temperature"),
    pytest.param(lambda r: r.update_center(CENTER, TEACHER, 1.5), ValueError, id="momentum-above-one"),
])
def test_contract_violations_raise(
    ref: ModuleType, call: Callable[[ModuleType], object], error: type[Exception]
) -> None:
    with pytest.raises(error):
        call(ref)
