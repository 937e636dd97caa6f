"""This is what you get when the clip is applied to the advantage instead of the ratio: clip(A, 1 - eps, 1 + eps) times r is not PPO's trust region.

Overrides: _surrogate_terms
"""

import torch


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps):
    ratio = _ratio(logp_new, logp_old)
    advantages = advantages.detach()
    unclipped = ratio * advantages
    clipped = ratio * torch.clamp(advantages, 1.0 - clip_eps, 1.0 + clip_eps)
    return -torch.minimum(unclipped, clipped)
