"""This is what you get when capacity is filled token by token (all of token 0's choices, then token 1's, ...): a token's second choice can take the place of a later token's first choice.

Overrides: capacity_mask
"""

import torch


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    N, K = experts.shape
    kept = torch.zeros(N, K, dtype=torch.bool, device=experts.device)
    served = [0] * num_experts
    for token in range(N):
        for choice in range(K):
            expert = int(experts[token, choice])
            if served[expert] < capacity:
                served[expert] += 1
                kept[token, choice] = True
    return kept
