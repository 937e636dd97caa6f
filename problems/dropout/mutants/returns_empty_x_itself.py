"""This is what you get when an empty x is returned as it is (nothing to drop), so the result is x itself.

Overrides: dropout
"""

_reference_dropout = dropout


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if x.numel() == 0:
        return x
    return _reference_dropout(x, p, uniform, training)
