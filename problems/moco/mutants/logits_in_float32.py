"""This is what you get when the logits are always computed in float32 (a mixed-precision habit) and cast
back: float64 inputs then get a loss that is only float32-accurate.

Overrides: _logits
"""

import torch


def _logits(q, k, negatives, temperature):
    q32, k32, n32 = q.float(), k.float(), negatives.float()
    positive = (q32 * k32).sum(dim=1, keepdim=True) / temperature  # [B, 1]
    negative = q32 @ n32.T / temperature  # [B, K]
    return torch.cat([positive, negative], dim=1).to(q.dtype)
