"""This is what you get when the logits are divided by sqrt(H D), the width of all query heads together (the model
width), instead of the head size sqrt(D).

Overrides: _scores
"""

import math


def _scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1] * q.shape[-3])
