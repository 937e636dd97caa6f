"""Plain Python loops over tokens; math.exp with the maximum subtracted; float64 inside, cast back."""

import torch

from helpers import check_assignments, check_router_logits


def _ranking(row):
    return sorted(range(len(row)), key=lambda e: (-row[e], e))


def top_k_gating(logits, k):
    check_router_logits(logits, k)
    N, E = logits.shape
    index = torch.zeros(N, k, dtype=torch.int64)
    for n, row in enumerate(logits.detach().double().tolist()):
        index[n] = torch.tensor(_ranking(row)[:k])
    selected = logits.double().gather(1, index)  # keeps the graph
    top = selected.max(dim=1, keepdim=True).values
    exps = torch.exp(selected - top)
    weights = exps / exps.sum(dim=1, keepdim=True)
    return torch.zeros(N, E, dtype=torch.float64).scatter(1, index, weights).to(logits.dtype)


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    rows = experts.tolist()
    kept = [[False] * experts.shape[1] for _ in rows]
    served = {}
    for choice in range(experts.shape[1]):
        for token, row in enumerate(rows):
            if served.get(row[choice], 0) < capacity:
                served[row[choice]] = served.get(row[choice], 0) + 1
                kept[token][choice] = True
    return torch.tensor(kept, dtype=torch.bool).reshape(experts.shape)


def load_balancing_loss(logits, k):
    check_router_logits(logits, k, min_tokens=1)
    N, E = logits.shape
    counts = [0] * E
    for row in logits.detach().double().tolist():
        for e in _ranking(row)[:k]:
            counts[e] += 1
    probs = torch.softmax(logits.double(), dim=1)
    total = sum(counts[e] / (N * k) * probs[:, e].mean() for e in range(E))
    return (E * total).to(logits.dtype)

