"""The update x A^T B^T is added without any scale (alpha / r is missing).

Overrides: lora_forward
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    frozen = x @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    return frozen + (x @ lora_a.T) @ lora_b.T
