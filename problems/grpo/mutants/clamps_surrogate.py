"""This is what you get when the product rho * A is clamped to [1 - eps, 1 + eps] instead of the ratio rho.

Overrides: _surrogate
Source: alexis-jacq/Pytorch-DPPO issue #3 (surr1 clamped instead of the ratio)
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_new - logp_old)
    unclipped = ratio * advantages.unsqueeze(1)
    return torch.minimum(unclipped, unclipped.clamp(1 - clip_eps, 1 + clip_eps))
