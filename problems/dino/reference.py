"""Reference DINO loss and centre update (Caron et al., 2021). The checks compare submissions
with it."""

import torch

from helpers import check_center, check_number, check_same_outputs, check_views


def _teacher_probabilities(teacher_outputs, center, teacher_temperature):
    """softmax((t - center) / tau_t) of each teacher view, detached: the teacher is a target, not trained here."""
    return [torch.softmax((t.detach() - center.detach()) / teacher_temperature, dim=-1) for t in teacher_outputs]


def _student_log_probabilities(student_outputs, student_temperature):
    return [torch.log_softmax(s / student_temperature, dim=-1) for s in student_outputs]  # stable at any scale


def _pairs(num_teacher, num_student):
    """(teacher view i, student view j) for every i != j: the same global crop is never its own target."""
    return [(i, j) for i in range(num_teacher) for j in range(num_student) if i != j]


def _cross_entropy(p, log_q):
    return -(p * log_q).sum(dim=-1).mean()  # (N, K) -> (N,) -> (): summed over K, averaged over the batch


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    targets = _teacher_probabilities(teacher_outputs, center, teacher_temperature)
    predictions = _student_log_probabilities(student_outputs, student_temperature)
    pairs = _pairs(len(targets), len(predictions))
    return sum(_cross_entropy(targets[i], predictions[j]) for i, j in pairs) / len(pairs)


def _batch_center(teacher_outputs):
    return torch.cat([t.detach() for t in teacher_outputs]).mean(dim=0)  # (2N, K) -> (K,): every teacher row


def update_center(center, teacher_outputs, momentum=0.9):
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_center(center, teacher_outputs)
    check_number("momentum", momentum, low=0, high=1, low_open=False)
    return momentum * center.detach() + (1 - momentum) * _batch_center(teacher_outputs)
