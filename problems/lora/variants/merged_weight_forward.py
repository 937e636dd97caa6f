"""Variant: the forward pass builds the effective weight W + (alpha / r) B A and applies it with F.linear."""

import torch

from helpers import check_adapter, check_alpha, check_x_bias


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    effective = weight.detach() + (alpha / lora_a.shape[0]) * (lora_b @ lora_a)  # gradient reaches A and B only
    return torch.nn.functional.linear(x, effective, None if bias is None else bias.detach())


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    merged = weight.detach().clone()
    merged.addmm_(lora_b.detach(), lora_a.detach(), alpha=alpha / lora_a.shape[0])
    return merged
