"""This is what you get when the teacher's softmax is not detached: gradients flow into the teacher, which DINO updates only as a moving average.

Overrides: _teacher_probabilities
Source: r-gould/sslearn, sslearn/losses/dino_loss.py (CrossEntropyLoss against softmax((teacher - center) / temp) with no detach in the loss)
"""

import torch


def _teacher_probabilities(teacher_outputs, center, teacher_temperature):
    return [torch.softmax((t - center) / teacher_temperature, dim=-1) for t in teacher_outputs]
