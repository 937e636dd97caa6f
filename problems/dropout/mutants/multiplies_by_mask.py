"""The dropped elements are multiplied by a 0/1 mask, so an inf or nan there becomes nan instead of 0.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return x * 0.0
    return x * (uniform >= p).to(x.dtype) / (1 - p)
