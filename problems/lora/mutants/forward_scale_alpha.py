"""The update is scaled by alpha instead of alpha / r.

Overrides: lora_forward
Source: https://github.com/rasbt/LLMs-from-scratch/issues/821 (the rank is missing in the scaling factor of LoRA)
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    frozen = x @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    return frozen + alpha * ((x @ lora_a.T) @ lora_b.T)
