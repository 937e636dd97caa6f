"""This is what you get when the ratio is pi_old / pi_theta, exp(logp_old - logp_new), instead of pi_theta / pi_old.

Overrides: _surrogate
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_old - logp_new)
    a = advantages.unsqueeze(1)
    return torch.minimum(ratio * a, ratio.clamp(1 - clip_eps, 1 + clip_eps) * a)
