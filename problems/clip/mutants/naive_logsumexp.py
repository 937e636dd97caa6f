"""This is what you get when the log-sum-exp is log(sum(exp(...))) without subtracting the maximum: it overflows at scale 100.

Overrides: _cross_entropy_diagonal
"""

import torch


def _cross_entropy_diagonal(logits):
    rows = torch.arange(logits.shape[0], device=logits.device)
    return (torch.log(torch.exp(logits).sum(dim=1)) - logits[rows, rows]).mean()
