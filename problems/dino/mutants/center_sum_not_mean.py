"""This is what you get when the batch centre is the sum of the teacher rows, never divided by their number 2N.

Overrides: _batch_center
Source: facebookresearch/dinov2 issue #546 (the centre update divided by the wrong count); vturrisi/solo-learn pull request #59 (whether the division belongs inside the distributed branch)
"""

import torch


def _batch_center(teacher_outputs):
    return torch.cat([t.detach() for t in teacher_outputs]).sum(dim=0)
