"""Variant: the update as a sum of r rank-one terms, each (x . a_k) b_k, accumulated in a Python loop."""

import torch

from helpers import check_adapter, check_alpha, check_x_bias


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    rank = lora_a.shape[0]
    out = torch.matmul(x, weight.detach().T)
    if bias is not None:
        out = out + bias.detach()
    for k in range(rank):
        projection = (x * lora_a[k]).sum(dim=-1, keepdim=True)  # (..., 1): x . a_k
        out = out + (alpha / rank) * projection * lora_b[:, k]
    return out


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    rank = lora_a.shape[0]
    merged = weight.detach().clone()
    with torch.no_grad():
        for k in range(rank):
            merged += (alpha / rank) * torch.outer(lora_b[:, k], lora_a[k])
    return merged
