"""This is what you get when the residual is max(q - p, 0): it resamples where the draft exceeds the target, the opposite of what a rejection needs.

Overrides: _residual
"""

import torch


def _residual(p, q):
    excess = (q - p).clamp_min(0)
    total = excess.sum(dim=-1, keepdim=True)
    safe = torch.where(total > 0, total, torch.ones_like(total))
    return torch.where(total > 0, excess / safe, p.clone())
