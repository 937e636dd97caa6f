"""The bias is left out of the frozen layer.

Overrides: lora_forward
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    return x @ weight.detach().T + alpha / lora_a.shape[0] * ((x @ lora_a.T) @ lora_b.T)
