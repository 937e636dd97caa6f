"""This is what you get when the projections are normalised in place: the caller's z1 and z2 are overwritten.

Overrides: simsiam_loss
"""

import torch

_reference_loss = simsiam_loss


def simsiam_loss(p1, p2, z1, z2):
    check_views(p1, p2, z1, z2)
    with torch.no_grad():
        for z in (z1, z2):
            z.div_(z.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR))
    return _reference_loss(p1, p2, z1, z2)
