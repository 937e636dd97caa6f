"""divides only the negative logits by the temperature.

Overrides: _logits
"""

import torch


def _logits(q, k, negatives, temperature):
    positive = (q * k).sum(dim=1, keepdim=True)  # [B, 1]
    negative = q @ negatives.T / temperature  # [B, K]
    return torch.cat([positive, negative], dim=1)
