"""This is what you get when x is flattened to [tokens, in] with x.view(-1, in) before the matrix products:
.view needs contiguous memory, so a transposed or sliced x raises instead of going through the layer.

Overrides: lora_forward
"""


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    rows = x.view(-1, x.shape[-1])  # (tokens, in)
    frozen = rows @ weight.detach().T
    if bias is not None:
        frozen = frozen + bias.detach()
    out = frozen + alpha / lora_a.shape[0] * ((rows @ lora_a.T) @ lora_b.T)
    return out.reshape(*x.shape[:-1], weight.shape[0])
