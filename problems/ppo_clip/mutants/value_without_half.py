"""This is what you get when the value loss is the plain mean squared error, without the factor 0.5: twice the loss the statement defines, and twice the critic's weight in ppo_loss.

Overrides: _value_terms
"""

import torch


def _value_terms(values, old_values, returns, clip_eps):
    returns = returns.detach()
    squared = (values - returns) ** 2
    if clip_eps is None:
        return squared
    old_values = old_values.detach()
    clipped_values = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
    return torch.maximum(squared, (clipped_values - returns) ** 2)
