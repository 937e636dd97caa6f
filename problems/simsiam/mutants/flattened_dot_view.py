"""This is what you get when the N row-wise dot products are taken as one dot product of the flattened unit rows
(the sum is the same) with .view(-1): unit rows keep their input's memory layout, so a transposed p1 or z2
raises RuntimeError instead of giving the loss; .reshape(-1) would copy where it must.

Overrides: _negative_cosine
"""

import torch


def _negative_cosine(p, z):
    unit_p, unit_z = _unit_rows(p), _unit_rows(z.detach())
    return -torch.dot(unit_p.view(-1), unit_z.view(-1)) / p.shape[0]
