"""This is what you get when the batch mean divides the summed losses by query.shape[1] (D) instead of
query.shape[0] (B): right only when the batch size equals the feature size.

Overrides: moco_loss
"""

import torch


def moco_loss(query, key, queue, temperature):
    validate_loss_inputs(query, key, queue, temperature)
    q, k, negatives = _unit_rows(query, key, queue)
    logits = _logits(q, k, negatives, temperature)  # [B, 1 + K]
    return (torch.logsumexp(logits, dim=1) - logits[:, 0]).sum() / query.shape[1]
