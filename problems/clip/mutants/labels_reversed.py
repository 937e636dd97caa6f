"""This is what you get when the labels are not on the diagonal: pair i is scored against column N - 1 - i.

Overrides: _cross_entropy_diagonal
"""

import torch


def _cross_entropy_diagonal(logits):
    rows = torch.arange(logits.shape[0], device=logits.device)
    return (torch.logsumexp(logits, dim=1) - logits[rows, rows.flip(0)]).mean()
