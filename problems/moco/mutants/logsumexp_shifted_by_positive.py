"""Log-sum-exp shifted by the positive logit instead of the largest one; exp overflows when a negative wins by 1/T.

Overrides: moco_loss
"""

import math
import torch


def moco_loss(query: torch.Tensor, key: torch.Tensor, queue: torch.Tensor, temperature: float) -> torch.Tensor:
    """InfoNCE with one positive (key i for query i) and the K queue rows as negatives; batch mean."""
    _check_temperature(temperature)
    _check_tensors(("query", "key", "queue"), (query, key, queue), LOSS_DTYPES)
    _check_matrix("query", query)
    _check_matrix("key", key)
    _check_matrix("queue", queue)
    if key.shape != query.shape:
        raise ValueError(f"key has shape {tuple(key.shape)} but query has {tuple(query.shape)}")
    if queue.shape[1] != query.shape[1]:
        raise ValueError(f"queue rows have {queue.shape[1]} entries but query rows have {query.shape[1]}")

    q = _normalise_rows(query)  # [B, D], gradients flow through the norm
    k = _normalise_rows(key.detach())  # [B, D]
    negatives = _normalise_rows(queue.detach())  # [K, D]
    positive = (q * k).sum(dim=1, keepdim=True) / temperature  # [B, 1]
    negative = q @ negatives.T / temperature  # [B, D] x [D, K] -> [B, K]
    logits = torch.cat([positive, negative], dim=1)  # [B, 1 + K]
    return torch.log(torch.exp(logits - positive).sum(dim=1)).mean()
