"""This is what you get when the logits are divided by the square root of the value size Dv instead of the key size D.

Overrides: _attend
"""

import math

_reference_attend = _attend


def _attend(q_new, cache_k, cache_v):
    rescale = math.sqrt(q_new.shape[-1]) / math.sqrt(cache_v.shape[-1])  # undo sqrt(D), divide by sqrt(Dv)
    return _reference_attend(q_new * rescale, cache_k, cache_v)
