"""Variant: einsum in float64 throughout, cast back to the inputs' dtype."""

import torch

from helpers import check_adapter, check_alpha, check_x_bias


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    h = x.double()
    out = torch.einsum("...i,oi->...o", h, weight.detach().double())
    if bias is not None:
        out = out + bias.detach().double()
    low = torch.einsum("...i,ri->...r", h, lora_a.double())
    out = out + alpha / lora_a.shape[0] * torch.einsum("...r,or->...o", low, lora_b.double())
    return out.to(x.dtype)


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    delta = torch.einsum("or,ri->oi", lora_b.detach().double(), lora_a.detach().double())
    return (weight.detach().double() + alpha / lora_a.shape[0] * delta).to(weight.dtype)
