"""Elements are kept where uniform < 1 - p (the other common convention), not where uniform >= p.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform < 1 - p, x / (1 - p), torch.zeros_like(x))
