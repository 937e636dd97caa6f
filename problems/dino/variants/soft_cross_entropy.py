"""Variant: F.cross_entropy with probability targets for each pair, the pairs listed explicitly, and the centre as
an explicit loop over the rows."""

import torch
import torch.nn.functional as F

from helpers import check_center, check_number, check_same_outputs, check_views


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    with torch.no_grad():
        targets = [F.softmax((t - center) / teacher_temperature, dim=1) for t in teacher_outputs]
    terms = []
    for j, s in enumerate(student_outputs):
        for i, target in enumerate(targets):
            if i != j:
                terms.append(F.cross_entropy(s / student_temperature, target))
    return torch.stack(terms).mean()


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    total = torch.zeros_like(center, requires_grad=False)
    count = 0
    for view in teacher_outputs:
        for row in view.detach():
            total = total + row
            count += 1
    return momentum * center.detach() + (1 - momentum) * (total / count)
