"""This is what you get when the draw takes the first token with C_i >= u instead of C_i > u: at u = 0 it returns a leading token of probability 0, one the filters removed.

Overrides: _inverse_cdf
Source: pytorch/pytorch issue #48841 (torch.multinomial selects elements with zero weight)
"""

import torch


def _inverse_cdf(probs, uniform):
    cdf = torch.cumsum(probs, dim=-1)
    index = (cdf < uniform.unsqueeze(-1)).sum(dim=-1)
    last = probs.shape[-1] - 1 - (probs > 0).flip(-1).to(torch.int64).argmax(dim=-1)
    return torch.minimum(index, last)
