"""This is what you get when the routing shares are counts divided by N instead of N * k: they sum to k, and the loss is k times too large.

Overrides: load_balancing_loss
Source: huggingface/transformers pull request #43775 (tokens_per_expert summed to K instead of 1 for top-k routing); jingyaogong/minimind issue #797 (the same scale question for num_experts_per_tok > 1)
"""

import torch


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)
    counts = torch.zeros(E, dtype=logits.dtype).index_add_(0, chosen.reshape(-1), torch.ones(N * k, dtype=logits.dtype))
    return E * (counts / N * torch.softmax(logits, dim=1).mean(dim=0)).sum()
