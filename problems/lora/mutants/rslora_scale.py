"""The update is scaled by alpha / sqrt(r) (rsLoRA) instead of the paper's alpha / r.

Overrides: lora_forward
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    frozen = x @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    return frozen + alpha / lora_a.shape[0] ** 0.5 * ((x @ lora_a.T) @ lora_b.T)
