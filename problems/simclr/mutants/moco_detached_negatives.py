"""This is what you get when the negatives are detached, as MoCo's queue is: only the anchor and its positive
receive gradients.

Overrides: _logits
"""

import torch


def _logits(z, temperature):
    n = z.shape[0] // 2
    logits = z @ z.T / temperature
    partner = torch.eye(2 * n, dtype=torch.bool, device=z.device).roll(n, dims=1)  # the partner's column
    logits = torch.where(partner, logits, logits.detach())
    is_self = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    return logits.masked_fill(is_self, float("-inf"))
