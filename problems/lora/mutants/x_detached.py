"""x is detached, so no gradient reaches the layers before the adapter.

Overrides: lora_forward
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    x = x.detach()
    frozen = x @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    return frozen + alpha / lora_a.shape[0] * ((x @ lora_a.T) @ lora_b.T)
