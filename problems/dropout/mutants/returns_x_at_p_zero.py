"""p = 0 and eval mode return x itself, so the result aliases the input.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x
    if p == 1:
        return torch.zeros_like(x)
    return torch.where(uniform >= p, x / (1 - p), torch.zeros_like(x))
