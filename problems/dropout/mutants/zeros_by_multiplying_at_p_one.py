"""This is what you get when p = 1 is handled by multiplying x by 0: an inf or nan in x becomes nan, not 0.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return x * 0.0
    return torch.where(uniform >= p, x / (1 - p), torch.zeros_like(x))
