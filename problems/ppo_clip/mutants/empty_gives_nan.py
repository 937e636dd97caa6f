"""This is what you get when the sum is divided by the number of counted steps without a floor of 1: an all-False mask or an empty batch gives 0 / 0 = nan, which poisons every parameter at the next optimiser step.

Overrides: _masked_mean
"""

import torch


def _masked_mean(terms, mask):
    if mask is not None:
        terms = torch.where(mask, terms, torch.zeros_like(terms))
        return terms.sum() / mask.sum()
    return terms.sum() / terms.numel()
