"""This is what you get when the residual max(p - q, 0) is not divided by its sum: it is not a distribution, and the draw lands on the last token too often.

Overrides: _residual
"""

import torch


def _residual(p, q):
    excess = (p - q).clamp_min(0)
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess, p.clone())
