"""The output is built from x.detach(), so no gradient reaches x.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.detach().clone()
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform >= p, x.detach() / (1 - p), torch.zeros_like(x))
