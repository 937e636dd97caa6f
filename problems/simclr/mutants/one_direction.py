"""This is what you get when only the z1 -> z2 direction is averaged: the N anchors of z2 are left out of the mean.

Overrides: nt_xent_loss
Source: tensorflow/similarity pull request #262 (the loss must cover both (i, j) and (j, i))
"""

import torch


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    z = _unit_rows(torch.cat([z1, z2], dim=0))
    return _per_anchor(_logits(z, temperature), _partners(n, z.device))[:n].mean()
