"""This is what you get when the advantages are not detached: the policy loss sends gradients into whatever computed them (the critic), training it to make advantages look good.

Source: icoxfog417/baby-steps-of-rl-ja issue #16 (the actor-critic's policy loss let gradients flow through the advantages into the value network; fixed with a stop-gradient)
Overrides: _surrogate_terms
"""

import torch


def _surrogate_terms(logp_new, logp_old, advantages, clip_eps):
    ratio = _ratio(logp_new, logp_old)
    unclipped = ratio * advantages
    clipped = torch.clamp(ratio, 1.0 - clip_eps, 1.0 + clip_eps) * advantages
    return -torch.minimum(unclipped, clipped)
