"""This is what you get when the centre is subtracted in place (t.detach().sub_(center)): detach() shares storage, so the caller's teacher outputs are overwritten.

Overrides: _teacher_probabilities
"""

import torch


def _teacher_probabilities(teacher_outputs, center, teacher_temperature):
    return [torch.softmax(t.detach().sub_(center.detach()) / teacher_temperature, dim=-1) for t in teacher_outputs]
