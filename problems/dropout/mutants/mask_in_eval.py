"""Eval mode still applies the mask (only the scaling is skipped).

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if p == 0:
        return x.clone()
    if not training:
        return torch.where(uniform >= p, x, torch.zeros_like(x))
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform >= p, x / (1 - p), torch.zeros_like(x))
