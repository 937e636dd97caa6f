"""Reference LoRA forward pass and merge (Hu et al., 2021). The checks compare submissions
with it."""

import torch

from helpers import check_adapter, check_alpha, check_x_bias


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    scale = alpha / lora_a.shape[0]  # alpha / r
    frozen = x @ weight.detach().T  # (..., in) x (in, out): the pretrained layer never trains
    if bias is not None:
        frozen = frozen + bias.detach()
    update = (x @ lora_a.T) @ lora_b.T  # (..., in) -> (..., r) -> (..., out): never forms the [out, in] product
    return frozen + scale * update


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():  # merging produces serving weights, not a training graph
        return weight + (alpha / lora_a.shape[0]) * (lora_b @ lora_a)  # (out, r) x (r, in) -> (out, in)
