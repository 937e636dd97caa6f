"""This is what you get when z2 is detached as if it were a MoCo key: no gradient reaches the second view.

Overrides: nt_xent_loss
"""

import torch


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    z = _unit_rows(torch.cat([z1, z2.detach()], dim=0))
    return _per_anchor(_logits(z, temperature), _partners(z1.shape[0], z.device)).mean()
