"""allows broadcastable shapes instead of requiring equal shapes.

Overrides: validate_momentum_inputs
"""

import torch

from helpers import check_scalar, check_tensors


def validate_momentum_inputs(query, key, momentum):
    if not 0.0 <= check_scalar("momentum", momentum) <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    check_tensors(("query", "key"), (query, key), (torch.float32, torch.float64))
    torch.broadcast_shapes(query.shape, key.shape)
