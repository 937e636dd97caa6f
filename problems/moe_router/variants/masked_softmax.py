"""Masks before the softmax (masked_fill with -inf, then a softmax over all experts); capacity from a cumulative
count over the choice-major flattening; the loss with bincount and a dot product."""

import torch

from helpers import check_assignments, check_router_logits


def _selected(logits, k):
    order = torch.sort(logits.detach(), dim=1, descending=True, stable=True).indices[:, :k]
    return torch.zeros_like(logits, dtype=torch.bool).scatter(1, order, True), order


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    selected, _ = _selected(logits, k)
    return torch.softmax(logits.masked_fill(~selected, float("-inf")), dim=1)


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    N, K = experts.shape
    arrivals = experts.t().reshape(-1)  # choice-major: all first choices, then all second choices
    one_hot = torch.nn.functional.one_hot(arrivals, num_experts)  # [K N, E]
    position = (torch.cumsum(one_hot, dim=0) * one_hot).sum(dim=1)  # 1-based place in its expert's queue
    return (position <= capacity).reshape(K, N).t().contiguous()


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    _, order = _selected(logits, k)
    fraction = torch.bincount(order.reshape(-1), minlength=E).to(logits.dtype) / (N * k)
    return E * torch.dot(fraction, torch.softmax(logits, dim=1).mean(dim=0))
