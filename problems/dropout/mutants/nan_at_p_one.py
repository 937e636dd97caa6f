"""p = 1 is not special-cased: 1 / (1 - p) is infinite and the dropped elements become 0 * inf = nan.

Overrides: dropout
Source: https://github.com/pytorch/pytorch/pull/1833 (divide by zero in dropout with p = 1); https://github.com/google/flax/pull/2055
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    mask = (uniform >= p).to(x.dtype)
    return x * mask * (1 / (1 - p) if p < 1 else float("inf"))
