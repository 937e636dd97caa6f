"""This is what you get when the clipped and unclipped terms are combined with a maximum instead of a minimum: the objective becomes optimistic, and a step whose ratio ran away keeps being pushed further.

Source: tensorforce/tensorforce issue #106 (the PPO surrogate did not take the minimum of the clipped and unclipped terms that the paper's equation 7 asks for; fixed after the report)
Overrides: _surrogate_terms
"""

import torch


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps):
    ratio = _ratio(logp_new, logp_old)
    advantages = advantages.detach()
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * advantages
    return -torch.maximum(unclipped, clipped)
