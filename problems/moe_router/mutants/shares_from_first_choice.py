"""This is what you get when the routing shares count only each token's first choice (Switch's top-1 rule) even when k > 1.

Overrides: load_balancing_loss
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    first = _top_k(logits, 1).reshape(-1)
    counts = torch.zeros(E, dtype=logits.dtype).index_add_(0, first, torch.ones(N, dtype=logits.dtype))
    return E * (counts / N * torch.softmax(logits, dim=1).mean(dim=0)).sum()
