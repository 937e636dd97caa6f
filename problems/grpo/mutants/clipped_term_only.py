"""This is what you get when the surrogate is only the clipped term clip(rho) A, without the minimum with rho A.

Overrides: _surrogate
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_new - logp_old)
    return ratio.clamp(1 - clip_eps, 1 + clip_eps) * advantages.unsqueeze(1)
