"""The dropped elements are zeroed in x itself (masked_fill_), modifying the caller's tensor.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    if p == 1:
        return x.detach().zero_().clone()
    with torch.no_grad():
        x.masked_fill_(uniform < p, 0.0)
    return x / (1 - p)
