"""This is what you get when P_e averages the router probability only where expert e was selected (0 elsewhere) instead of the full softmax over every token.

Overrides: load_balancing_loss
Source: paiml/aprender pull request #2162 (the MoE load-balance loss computed P_i over the top-k experts only, not the full router softmax)
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)
    selected = torch.zeros_like(logits, dtype=torch.bool).scatter(1, chosen, True)
    counts = selected.sum(dim=0).to(logits.dtype)
    probs = torch.softmax(logits, dim=1) * selected
    return E * (counts / (N * k) * probs.mean(dim=0)).sum()
