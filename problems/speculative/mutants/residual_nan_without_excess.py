"""This is what you get when the residual is max(p - q, 0) divided by its sum with no special case: a row where p never exceeds q gives 0/0, a row of nan.

Overrides: _residual
Source: feifeibear/LLMSpeculativeSampling sampling/utils.py (max_fn divides max(x, 0) by its sum with no guard)
"""


def _residual(p, q):
    excess = (p - q).clamp_min(0)
    return excess / excess.sum(dim=-1, keepdim=True)
