"""The p = 1 result is a fresh zeros tensor, cut off from x's graph, so x.grad is None instead of 0.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform >= p, x / (1 - p), torch.zeros_like(x))
