"""The result is computed in float32 (a float32 mask times x), so float64 inputs come back as float32.

Overrides: dropout
"""


def dropout(x, p, uniform, training=True):
    check_inputs(x, uniform)
    check_settings(p, training)
    if not training or p == 0:
        return x.clone()
    mask = (uniform >= p).to(torch.float32)
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return torch.where(mask.bool(), x.float() * scale, torch.zeros_like(x, dtype=torch.float32))
