"""Variant: the original code's layout: every view concatenated into one tensor, chunked back, a double loop
that skips the same view, torch.nn.functional, and the centre from the sum of the rows divided by their count."""

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
    student_out = torch.cat(list(student_outputs)) / student_temperature
    student_out = student_out.chunk(len(student_outputs))
    teacher_out = F.softmax((torch.cat(list(teacher_outputs)) - center) / teacher_temperature, dim=-1)
    teacher_out = teacher_out.detach().chunk(2)
    total_loss, n_loss_terms = 0, 0
    for iq, q in enumerate(teacher_out):
        for v in range(len(student_out)):
            if v == iq:
                continue
            loss = torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1)
            total_loss = total_loss + loss.mean()
            n_loss_terms += 1
    return total_loss / n_loss_terms


@torch.no_grad()
def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    rows = torch.cat(list(teacher_outputs))
    batch_center = torch.sum(rows, dim=0) / len(rows)
    return center * momentum + batch_center * (1 - momentum)
