"""This is what you get when N is read from the last axis (z1.shape[-1], the feature count): partners sit D
rows apart instead of N, which is right only when the batch happens to have as many pairs as features.

Overrides: nt_xent_loss
"""

import torch


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[-1]
    z = _unit_rows(torch.cat([z1, z2], dim=0))
    return _per_anchor(_logits(z, temperature), _partners(n, z.device)).mean()
