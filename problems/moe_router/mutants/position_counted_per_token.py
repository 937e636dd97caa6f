"""This is what you get when a slot's place in its expert's queue is counted within the token's own choices instead of across the tokens: every slot is first in line and nothing is ever dropped.

Overrides: capacity_mask
Source: huggingface/transformers issue #48293 (Switch Transformers' token priority cumsum over the wrong dimension: every token gets priority 1 and no token is dropped)
"""

import torch


def capacity_mask(experts, num_experts, capacity):
    check_assignments(experts, num_experts, capacity)
    one_hot = torch.nn.functional.one_hot(experts, num_experts)  # [N, K, E]
    position = torch.cumsum(one_hot, dim=1)  # counted along the token's own choices
    return ((position * one_hot).sum(dim=-1) <= capacity) & (capacity > 0)
