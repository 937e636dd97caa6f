"""This is what you get when the gates are the full softmax of the selected experts divided by a detached sum: the values are right, but the gradient is not the softmax over the selected experts and leaks into the unselected logits.

Overrides: top_k_gating
"""

import torch


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    chosen = _top_k(logits, k)
    probs = torch.softmax(logits, dim=1)
    kept = probs * torch.zeros_like(probs, dtype=torch.bool).scatter(1, chosen, True)
    return kept / kept.sum(dim=1, keepdim=True).detach()
