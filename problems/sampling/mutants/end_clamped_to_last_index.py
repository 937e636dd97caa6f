"""This is what you get when a u beyond the last cumulative sum is clamped to the last index of the vocabulary: when rounding leaves the total below u, a removed token at the end is drawn.

Overrides: _inverse_cdf
"""

import torch


def _inverse_cdf(probs, uniform):
    cdf = torch.cumsum(probs, dim=-1)
    index = (cdf <= uniform.unsqueeze(-1)).sum(dim=-1)
    return index.clamp(max=probs.shape[-1] - 1)
