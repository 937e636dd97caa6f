"""This is what you get when the log-ratio is clipped to [-eps, eps] before exponentiating: the range becomes [e^-eps, e^eps] = [0.819, 1.221] at eps = 0.2, not [0.8, 1.2].

Overrides: _surrogate_terms
"""

import torch


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps):
    log_ratio = logp_new - logp_old.detach()
    ratio = torch.exp(log_ratio)
    advantages = advantages.detach()
    unclipped = ratio * advantages
    clipped = torch.exp(torch.clamp(log_ratio, -clip_eps, clip_eps)) * advantages
    return -torch.minimum(unclipped, clipped)
