"""This is what you get when z1 and z2 are normalised in place: the caller's tensors are overwritten.

Overrides: nt_xent_loss
"""

import torch

_reference_loss = nt_xent_loss  # the reference's own, before this patch replaces it


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    with torch.no_grad():
        z1.div_(z1.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR))
        z2.div_(z2.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR))
    return _reference_loss(z1, z2, temperature)
