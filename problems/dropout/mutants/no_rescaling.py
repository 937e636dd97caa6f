"""The kept elements are not rescaled by 1 / (1 - p), so the expected output shrinks to (1 - p) x.

Overrides: dropout
Source: https://github.com/NeuraLegion/shainet/pull/106 (the CUDA dropout kernel kept row_in[j] unscaled)
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    return torch.where(uniform >= p, x, torch.zeros_like(x))
