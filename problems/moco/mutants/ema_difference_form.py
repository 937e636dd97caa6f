"""Momentum update written as key + (1 - m) * (query - key): equal in exact arithmetic, but m = 0 no longer returns query exactly.

Overrides: momentum_update
"""

import torch


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    with torch.no_grad():
        return key.detach() + (1.0 - m) * (query.detach() - key.detach())
