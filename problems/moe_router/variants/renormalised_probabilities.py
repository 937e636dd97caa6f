"""Softmax over all experts, then the selected probabilities divided by their sum (Mixtral's form); capacity with
per-expert counters in a tensor; everything in float64, cast back."""

import torch

from helpers import check_assignments, check_router_logits


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    work = logits.double()
    order = torch.sort(work.detach(), dim=1, descending=True, stable=True).indices[:, :k]
    chosen = torch.softmax(work, dim=1).gather(1, order)
    gates = torch.zeros_like(work).scatter(1, order, chosen / chosen.sum(dim=1, keepdim=True))
    return gates.to(logits.dtype)


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    served = torch.zeros(num_experts, dtype=torch.int64)
    kept = torch.zeros(experts.shape, dtype=torch.bool)
    for choice in range(experts.shape[1]):
        for token in range(experts.shape[0]):
            e = experts[token, choice]
            if served[e] < capacity:
                served[e] += 1
                kept[token, choice] = True
    return kept


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    work = logits.double()
    N, E = work.shape
    order = torch.sort(work.detach(), dim=1, descending=True, stable=True).indices[:, :k]
    routed = torch.zeros(N, E, dtype=torch.float64).scatter(1, order, 1.0).sum(dim=0)  # choices per expert
    mean_probability = torch.softmax(work, dim=1).mean(dim=0)
    return (E / (N * k) * (routed * mean_probability).sum()).to(logits.dtype)
