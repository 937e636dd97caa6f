"""This is what you get when experts with equal logits rank with the larger index first.

Overrides: _top_k
"""

import torch


def _top_k(logits, k):
    E = logits.shape[1]
    flipped = torch.sort(logits.detach().flip(1), dim=1, descending=True, stable=True).indices[:, :k]
    return E - 1 - flipped
