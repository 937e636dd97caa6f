"""This is what you get when a slot is kept while its expert has served at most capacity slots: every expert takes one slot too many.

Overrides: capacity_mask
"""

import torch


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    N, K = experts.shape
    kept = torch.zeros(N, K, dtype=torch.bool, device=experts.device)
    served = [0] * num_experts
    for choice in range(K):
        for token in range(N):
            expert = int(experts[token, choice])
            if served[expert] <= capacity:
                served[expert] += 1
                kept[token, choice] = True
    return kept
