"""weights the query by m and the key by 1 - m.

Overrides: momentum_update
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():
        return m * query.detach() + (1.0 - m) * key.detach()
