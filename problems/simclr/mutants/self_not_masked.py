"""This is what you get when the view's similarity with itself (cosine 1) stays among its own candidates.

Overrides: _logits
"""


def _logits(z, temperature):
    return z @ z.T / temperature
