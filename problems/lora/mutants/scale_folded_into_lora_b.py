"""The scale is folded into lora_b in place (lora_b *= alpha / r), changing the caller's adapter on every call.

Overrides: lora_forward
"""

import torch


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    with torch.no_grad():
        lora_b.mul_(alpha / lora_a.shape[0])
    frozen = x @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    return frozen + (x @ lora_a.T) @ lora_b.T
