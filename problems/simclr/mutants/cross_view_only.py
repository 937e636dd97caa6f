"""This is what you get when only the other view's rows are candidates, as in CLIP: the N - 1 other views on the
anchor's own side are missing from its negatives.

Overrides: _logits
Source: torchgeo/torchgeo pull request #1208 (an NT-Xent proposed as cross_entropy(z1 @ z2.T, arange(N)))
"""

import torch


def _logits(z, temperature):
    logits = z @ z.T / temperature
    first_view = torch.arange(z.shape[0], device=z.device) < z.shape[0] // 2  # (2N,)
    same_side = first_view[:, None] == first_view[None, :]  # (2N, 2N), the diagonal included
    return logits.masked_fill(same_side, float("-inf"))
