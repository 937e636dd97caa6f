"""This is what you get when the clipped value loss uses the clipped error alone, without the maximum with the unclipped one: a critic that moved past the clip gets no gradient at all, even when it moved the wrong way.

Overrides: _value_terms
"""

import torch


def _value_terms(values, old_values, returns, clip_eps):
    returns = returns.detach()
    if clip_eps is None:
        return 0.5 * (values - returns) ** 2
    old_values = old_values.detach()
    clipped_values = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
    return 0.5 * (clipped_values - returns) ** 2
