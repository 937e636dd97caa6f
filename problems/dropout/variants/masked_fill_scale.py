"""Variant (correct): masked_fill on a copy, then one multiplication by the scale."""

from helpers import check_inputs, check_settings


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training:
        return x.clone()
    scale = 1.0 if p == 0 else (0.0 if p == 1 else 1.0 / (1.0 - p))
    return x.masked_fill(uniform < p, 0.0) * scale
