"""y is computed from x.detach(), so no gradient reaches x, weight or bias.

Overrides: batch_norm_train
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]
    if count < 2:
        raise ValueError("one value per channel")
    xd = x.detach()
    dims = _reduced_dims(xd)
    mean, centred = _centre(xd, dims)
    var = (centred * centred).mean(dim=dims)
    y = centred / torch.sqrt(_per_channel(var, xd) + eps) * _per_channel(weight.detach(), xd) \
        + _per_channel(bias.detach(), xd)
    new_mean = (1 - momentum) * running_mean + momentum * mean
    new_var = (1 - momentum) * running_var + momentum * var * count / (count - 1)
    return y, new_mean, new_var
