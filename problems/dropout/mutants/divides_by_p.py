"""The kept elements are divided by p, the drop probability, instead of by the keep probability 1 - p.

Overrides: dropout
Source: https://github.com/lmjohns3/theanets/pull/123 (BernoulliDropout divided by weight rather than 1 - weight)
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform >= p, x / p, torch.zeros_like(x))
