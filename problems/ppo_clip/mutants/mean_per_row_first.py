"""This is what you get when the mean is taken over each row's counted steps first and then over the rows: a row with one counted step weighs as much as a row with many (a sequence mean, not the token mean asked for).

Overrides: _masked_mean
"""

import torch


def _masked_mean(terms, mask):
    if mask is None or terms.dim() < 2:
        if mask is not None:
            terms = torch.where(mask, terms, torch.zeros_like(terms))
            return terms.sum() / max(int(mask.sum()), 1)
        return terms.sum() / max(terms.numel(), 1)
    kept = torch.where(mask, terms, torch.zeros_like(terms))
    counts = mask.sum(dim=-1).clamp_min(1)
    per_row = kept.sum(dim=-1) / counts
    return per_row.sum() / max(per_row.numel(), 1)
