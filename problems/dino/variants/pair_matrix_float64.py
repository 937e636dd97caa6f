"""Variant: all 2 x V cross-entropies at once in float64 with einsum, the diagonal masked out, then the mean of the
rest; a hand-written stable softmax; the centre as torch.lerp."""

import torch

from helpers import check_center, check_number, check_same_outputs, check_views


def _log_softmax(x):
    shifted = x - x.max(dim=-1, keepdim=True).values
    return shifted - shifted.exp().sum(dim=-1, keepdim=True).log()


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    teacher = torch.stack([t.detach().double() for t in teacher_outputs])  # (2, N, K)
    student = torch.stack([s.double() for s in student_outputs])  # (V, N, K)
    p = _log_softmax((teacher - center.detach().double()) / teacher_temperature).exp()
    log_q = _log_softmax(student / student_temperature)
    n = teacher.shape[1]
    cross = -torch.einsum("ink,jnk->ij", p, log_q) / n  # (2, V): H(P_i, Q_j)
    keep = torch.ones_like(cross, dtype=torch.bool)
    keep[0, 0] = keep[1, 1] = False
    return cross[keep].mean().to(center.dtype)


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    batch = torch.cat([t.detach() for t in teacher_outputs]).mean(dim=0)
    return torch.lerp(batch, center.detach(), float(momentum))  # batch + m (center - batch)
