"""This is what you get when P_e is the mean of the renormalised top-k gates instead of the full router softmax.

Overrides: load_balancing_loss
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)
    counts = torch.zeros(E, dtype=logits.dtype).index_add_(0, chosen.reshape(-1), torch.ones(N * k, dtype=logits.dtype))
    return E * (counts / (N * k) * top_k_gating(logits, k).mean(dim=0)).sum()
