"""This is what you get when the router softmax runs over the tokens (dim = 0) instead of over the experts.

Overrides: load_balancing_loss
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)
    counts = torch.zeros(E, dtype=logits.dtype).index_add_(0, chosen.reshape(-1), torch.ones(N * k, dtype=logits.dtype))
    return E * (counts / (N * k) * torch.softmax(logits, dim=0).mean(dim=0)).sum()
