"""This is what you get when the objective is returned as it is, not negated: the paper maximises the surrogate, an optimiser minimises the loss, so this one makes good actions less likely.

Overrides: _surrogate_terms
"""

import torch


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps):
    ratio = _ratio(logp_new, logp_old)
    advantages = advantages.detach()
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * advantages
    return torch.minimum(unclipped, clipped)
