"""Eval mode still divides by 1 - p instead of returning x unchanged.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if p == 0:
        return x.clone()
    if p == 1:
        return torch.zeros_like(x) if training else x.clone()
    if not training:
        return x / (1 - p)
    return torch.where(uniform >= p, x / (1 - p), torch.zeros_like(x))
