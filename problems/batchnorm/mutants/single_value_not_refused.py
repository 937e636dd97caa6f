"""A single value per channel is not refused in training: the unbiased variance divides by m - 1 = 0.

Overrides: batch_norm_train
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]
    dims = _reduced_dims(x)
    mean, centred = _centre(x, dims)
    var = (centred * centred).mean(dim=dims)
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():
        unbiased = var * count / (count - 1) if count > 1 else var * float("inf")
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * unbiased
    return y, new_mean, new_var
