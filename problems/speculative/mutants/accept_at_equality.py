"""This is what you get when a draft is rejected only when u > p/q: at u = p/q it is accepted, so with u = 0 a token the target gives probability 0 gets through.

Overrides: _accepted
Source: feifeibear/LLMSpeculativeSampling sampling/speculative_sampling.py (rejects only when r > p/q)
"""


def _accepted(u, p_x, q_x):
    return u * q_x <= p_x
