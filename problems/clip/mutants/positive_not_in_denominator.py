"""This is what you get when the matching pair is left out of the softmax's denominator: only the N - 1 mismatches are summed.

Overrides: _cross_entropy_diagonal
"""

import torch


def _cross_entropy_diagonal(logits):
    rows = torch.arange(logits.shape[0], device=logits.device)
    is_pair = torch.eye(logits.shape[0], dtype=torch.bool, device=logits.device)
    others = logits.masked_fill(is_pair, float("-inf"))
    return (torch.logsumexp(others, dim=1) - logits[rows, rows]).mean()
