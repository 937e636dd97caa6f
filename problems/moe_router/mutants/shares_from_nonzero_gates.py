"""This is what you get when the routing choices are counted as the nonzero gates: a selected expert whose gate
rounds to 0 at far-apart logits is still one of the token's k choices.

Overrides: load_balancing_loss
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    counts = (top_k_gating(logits.detach(), k) > 0).sum(dim=0).to(logits.dtype)
    return E * (counts / (N * k) * torch.softmax(logits, dim=1).mean(dim=0)).sum()
