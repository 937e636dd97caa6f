"""Reference solution for the mixture-of-experts router problem. Trusted: imported only in the judge's process."""

import torch

from helpers import check_assignments, check_router_logits


def top_k_gating(logits, k):
    """Dense gates [N, E]: softmax over each token's k largest logits, exactly 0 for the other experts."""
    check_router_logits(logits, k)
    chosen = _top_k(logits, k)  # [N, k] expert indices, best first
    selected = logits.gather(1, chosen)  # [N, k], differentiable
    weights = torch.softmax(selected, dim=1)  # subtracts each row's maximum: stable at any scale
    return torch.zeros_like(logits).scatter(1, chosen, weights)


def _top_k(logits, k):
    """The k experts with the largest logits, best first; equal logits in increasing expert order."""
    return torch.sort(logits.detach(), dim=1, descending=True, stable=True).indices[:, :k]


def capacity_mask(experts, num_experts, capacity):
    """kept [N, K]: slots are served choice by choice (every token's first choice, then every second choice, ...),
    tokens in order; a slot is kept while its expert has served fewer than `capacity` slots."""
    check_assignments(experts, num_experts, capacity)
    N, K = experts.shape
    kept = torch.zeros(N, K, dtype=torch.bool, device=experts.device)
    served = [0] * num_experts
    for choice in range(K):
        for token in range(N):
            expert = int(experts[token, choice])
            if served[expert] < capacity:
                served[expert] += 1
                kept[token, choice] = True
    return kept


def load_balancing_loss(logits, k):
    """E * sum_e f_e * P_e: f_e the share of the N * k routing choices that go to expert e (no gradient), P_e the
    mean router probability of expert e over the tokens (full softmax, with gradient)."""
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    chosen = _top_k(logits, k)  # [N, k]
    counts = torch.zeros(E, dtype=logits.dtype, device=logits.device).index_add_(
        0, chosen.reshape(-1), torch.ones(N * k, dtype=logits.dtype, device=logits.device))
    fraction = counts / (N * k)  # [E], sums to 1, a constant for autograd
    mean_probability = torch.softmax(logits, dim=1).mean(dim=0)  # [E], sums to 1
    return E * (fraction * mean_probability).sum()
