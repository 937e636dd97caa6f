"""detaches the query's norm, so the gradient ignores the normalisation.

Overrides: _unit_rows
"""

import torch


def _unit_rows(query, key, queue):
    q = query / torch.linalg.vector_norm(query, dim=1, keepdim=True).clamp_min(NORM_FLOOR).detach()  # [B, D]
    return q, _normalise_rows(key.detach()), _normalise_rows(queue.detach())
