"""Momentum update written as key + (1 - m) * (query - key): equal in exact arithmetic, but m = 0 no longer returns query exactly.

Overrides: momentum_update
"""

import math
import torch


def momentum_update(query: torch.Tensor, key: torch.Tensor, momentum: float = 0.999) -> torch.Tensor:
    """theta_k_new = m * theta_k + (1 - m) * theta_q, in new storage that does not require grad."""
    m = _check_momentum(momentum)
    _check_tensors(("query", "key"), (query, key), LOSS_DTYPES)
    if query.shape != key.shape:
        raise ValueError(f"query has shape {tuple(query.shape)} but key has {tuple(key.shape)} (no broadcasting)")
    with torch.no_grad():  # the key encoder is never trained by gradient; the result is new storage
        return key.detach() + (1.0 - m) * (query.detach() - key.detach())
