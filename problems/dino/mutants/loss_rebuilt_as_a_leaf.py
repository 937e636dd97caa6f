"""This is what you get when the loss is rebuilt as a new tensor that requires grad (torch.tensor(loss.item(), requires_grad=True)): it has the right value and requires grad, but backward() reaches no student view, so the student never trains.

Overrides: dino_loss
"""

import torch

_reference_loss = dino_loss


def dino_loss(student_outputs, teacher_outputs, center, student_temperature=0.1, teacher_temperature=0.04):
    loss = _reference_loss(student_outputs, teacher_outputs, center, student_temperature, teacher_temperature)
    return torch.tensor(loss.item(), dtype=loss.dtype, requires_grad=loss.requires_grad)
