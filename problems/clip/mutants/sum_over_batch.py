"""This is what you get when the cross-entropies are summed over the N pairs instead of averaged.

Overrides: _cross_entropy_diagonal
"""

import torch


def _cross_entropy_diagonal(logits):
    rows = torch.arange(logits.shape[0], device=logits.device)
    return (torch.logsumexp(logits, dim=1) - logits[rows, rows]).sum()
