"""This is what you get when the returns are not detached: the value target receives gradients and the critic's loss can be lowered by moving the target instead of the prediction.

Overrides: _value_terms
"""

import torch


def _value_terms(values, old_values, returns, clip_eps):
    squared = (values - returns) ** 2
    if clip_eps is None:
        return 0.5 * squared
    old_values = old_values.detach()
    clipped_values = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
    return 0.5 * torch.maximum(squared, (clipped_values - returns) ** 2)
