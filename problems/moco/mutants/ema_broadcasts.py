"""allows broadcastable shapes instead of requiring equal shapes.

Overrides: _check_momentum_inputs
"""

import torch


def _check_momentum_inputs(query, key, momentum):
    m = _check_momentum(momentum)
    _check_tensors(("query", "key"), (query, key), LOSS_DTYPES)
    torch.broadcast_shapes(query.shape, key.shape)
    return m
