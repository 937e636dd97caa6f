"""This is what you get when the clipped value loss keeps the smaller of the two errors instead of the larger: the clip then lets the critic off the hook instead of bounding how far it moves.

Source: ray-project/ray issue #2233 (RLlib's PPO took tf.minimum of the clipped and unclipped value losses where OpenAI Baselines takes tf.maximum)
Overrides: _value_terms
"""

import torch


def _value_terms(values, old_values, returns, clip_eps):
    returns = returns.detach()
    squared = (values - returns) ** 2
    if clip_eps is None:
        return 0.5 * squared
    old_values = old_values.detach()
    clipped_values = old_values + torch.clamp(values - old_values, -clip_eps, clip_eps)
    return 0.5 * torch.minimum(squared, (clipped_values - returns) ** 2)
