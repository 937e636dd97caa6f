"""This is what you get when the tokens are served from the last to the first: the earlier tokens are the ones dropped.

Overrides: capacity_mask
"""

import torch


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    N, K = experts.shape
    kept = torch.zeros(N, K, dtype=torch.bool, device=experts.device)
    served = [0] * num_experts
    for choice in range(K):
        for token in reversed(range(N)):
            expert = int(experts[token, choice])
            if served[expert] < capacity:
                served[expert] += 1
                kept[token, choice] = True
    return kept
