"""This is what you get when the centre is subtracted from the student's outputs instead of the teacher's.

Overrides: dino_loss
"""

import torch


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    check_views("student_outputs", student_outputs, at_least=2)
    check_views("teacher_outputs", teacher_outputs, exactly=2)
    check_same_outputs(student_outputs, teacher_outputs)
    check_center(center, teacher_outputs)
    check_number("student_temperature", student_temperature, low=0)
    check_number("teacher_temperature", teacher_temperature, low=0)
    targets = [torch.softmax(t.detach() / teacher_temperature, dim=-1) for t in teacher_outputs]
    predictions = [torch.log_softmax((s - center) / student_temperature, dim=-1) for s in student_outputs]
    pairs = _pairs(len(targets), len(predictions))
    return sum(_cross_entropy(targets[i], predictions[j]) for i, j in pairs) / len(pairs)
