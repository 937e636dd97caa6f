"""This is what you get when the minimum is taken over the ratios before multiplying by the advantage: for A < 0 the clip no longer binds on the right side.

Overrides: _surrogate
Source: takuseno/ppo issue #3 (the minimum taken before multiplying by the advantages)
"""


def _surrogate(logp_new, logp_old, advantages, clip_eps):
    ratio = torch.exp(logp_new - logp_old)
    return torch.minimum(ratio, ratio.clamp(1 - clip_eps, 1 + clip_eps)) * advantages.unsqueeze(1)
