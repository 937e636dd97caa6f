"""This is what you get when the centre is not subtracted from the teacher's outputs before its softmax.

Overrides: _teacher_probabilities
"""

import torch


def _teacher_probabilities(teacher_outputs, center, teacher_temperature):
    return [torch.softmax(t.detach() / teacher_temperature, dim=-1) for t in teacher_outputs]
