"""This is what you get when the ratio is computed as exp(logp_new) / exp(logp_old) instead of exp(logp_new - logp_old): once both exps underflow to 0 it is 0 / 0 = nan.

Overrides: _surrogate
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_new) / torch.exp(logp_old)
    a = advantages.unsqueeze(1)
    return torch.minimum(ratio * a, ratio.clamp(1 - clip_eps, 1 + clip_eps) * a)
