"""This is what you get when the cumulative sums are taken in the ranked (most probable first) order instead of vocabulary order: each token keeps its probability, but a given u picks a different token.

Overrides: _inverse_cdf
"""

import torch


def _inverse_cdf(probs, uniform):
    ranked, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    cdf = torch.cumsum(ranked, dim=-1)
    position = (cdf <= uniform.unsqueeze(-1)).sum(dim=-1, keepdim=True)
    position = position.clamp(max=probs.shape[-1] - 1)
    return order.gather(-1, position).squeeze(-1)
