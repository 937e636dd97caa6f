"""This is what you get when the gates are the router's full-softmax probabilities of the k chosen experts, not renormalised over them: a token's gates sum to less than 1.

Overrides: top_k_gating
Source: pytorch/torchtitan issue #1448 (the DeepSeek-V3 router did not normalise the top-k probabilities, unlike the reference implementation)
"""

import torch


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    chosen = _top_k(logits, k)
    probs = torch.softmax(logits, dim=1)
    return torch.zeros_like(logits).scatter(1, chosen, probs.gather(1, chosen))
