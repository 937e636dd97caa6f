"""This is what you get when the surrogate takes the maximum of the clipped and unclipped terms: the optimistic bound, which removes the trust region.

Overrides: _surrogate
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_new - logp_old)
    a = advantages.unsqueeze(1)
    return torch.maximum(ratio * a, ratio.clamp(1 - clip_eps, 1 + clip_eps) * a)
