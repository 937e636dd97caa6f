"""turns the momentum into a float64 tensor, which promotes 0-d float32 parameters to float64.

Overrides: momentum_update
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = torch.tensor(float(momentum), dtype=torch.float64)
    with torch.no_grad():
        return m * key.detach() + (1.0 - m) * query.detach()
