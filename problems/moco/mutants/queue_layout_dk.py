"""reads the queue as [D, K] like the official code's buffer (normalises columns, q @ queue).

Overrides: _unit_rows, _logits
Source: facebookresearch/moco moco/builder.py, __init__: the queue buffer is randn(dim, K)
"""

import torch


def _unit_rows(query, key, queue):
    negatives = queue.detach() / queue.detach().norm(dim=0, keepdim=True).clamp_min(NORM_FLOOR)  # [D, K] columns
    return _normalise_rows(query), _normalise_rows(key.detach()), negatives


def _logits(q, k, negatives, temperature):
    positive = (q * k).sum(dim=1, keepdim=True) / temperature  # [B, 1]
    return torch.cat([positive, q @ negatives / temperature], dim=1)  # q @ queue, as if it were [D, K]
