"""The kept elements are multiplied by 1 - p, the paper's test-time weight scaling, instead of divided by it.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    return torch.where(uniform >= p, x * (1 - p), torch.zeros_like(x))
