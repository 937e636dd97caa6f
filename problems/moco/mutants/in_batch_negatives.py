"""SimCLR-style: the other keys of the batch are used as extra negatives.

Overrides: _logits
"""

import torch


def _logits(q, k, negatives, temperature):
    """The positive first, then the other keys of the batch, then the queue."""
    batch = q @ k.T / temperature  # [B, B], diagonal = positives
    others = batch.masked_fill(torch.eye(q.shape[0], dtype=torch.bool, device=q.device), float("-inf"))
    return torch.cat([batch.diagonal()[:, None], others, q @ negatives.T / temperature], dim=1)  # [B, 1 + B + K]
