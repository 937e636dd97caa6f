"""This is what you get when masked steps are zeroed but still counted: the sum over the kept steps is divided by every entry, so padding dilutes the loss and its gradient.

Source: Tencent-Hunyuan/UniRL pull request #448 (DRPO/CPPO/DPPO zeroed the loss mask and then took .mean() over the full packed length, diluting the gradient)
Overrides: _masked_mean
"""

import torch


def _masked_mean(terms, mask):
    if mask is not None:
        terms = torch.where(mask, terms, torch.zeros_like(terms))
    return terms.sum() / max(terms.numel(), 1)
