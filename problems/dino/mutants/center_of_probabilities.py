"""This is what you get when the centre is updated with the mean of the teacher's softmax probabilities instead of its raw outputs.

Overrides: _batch_center
Source: Aditya-Shandilya1182/DINO, dino_loss.py (update_center receives teacher_output after it was overwritten by the softmax)
"""

import torch


def _batch_center(teacher_outputs):
    return torch.cat([torch.softmax(t.detach() / 0.04, dim=-1) for t in teacher_outputs]).mean(dim=0)
