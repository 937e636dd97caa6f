"""This is what you get when the positives' sum is taken as one dot product of the flattened unit views (sum_i
<u1_i, u2_i>, each positive pair counted once per direction) with .view(-1): unit rows keep their input's memory
layout, so a transposed z1 or z2 raises RuntimeError instead of giving the loss; .reshape(-1) would copy.

Overrides: nt_xent_loss
"""

import torch


def nt_xent_loss(z1, z2, temperature):
    check_views(z1, z2)
    check_temperature(temperature)
    n = z1.shape[0]
    u1, u2 = _unit_rows(z1), _unit_rows(z2)
    logits = _logits(torch.cat([u1, u2], dim=0), temperature)  # (2N, 2N), the diagonal masked
    positives = 2 * torch.dot(u1.view(-1), u2.view(-1)) / temperature  # both directions
    return (torch.logsumexp(logits, dim=1).sum() - positives) / (2 * n)
