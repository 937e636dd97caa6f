"""Elements are kept only where uniform > p, so a draw exactly equal to p is dropped.

Overrides: dropout
Source: https://github.com/kakaobrain/trident/pull/89 (trident/kernel/dropout.py keeps where tl.rand(...) > p)
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform > p, x / (1 - p), torch.zeros_like(x))
