"""flattens the parameters with .view(-1), which fails on non-contiguous (transposed, sliced) tensors.

Overrides: momentum_update
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():
        flat = m * key.detach().view(-1) + (1.0 - m) * query.detach().view(-1)
        return flat.view(key.shape)
