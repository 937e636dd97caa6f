"""The running variance is updated with the biased batch variance, without Bessel's correction m / (m - 1).

Overrides: batch_norm_train
Source: https://github.com/tenstorrent/tt-metal/issues/55438 (running_var updated with the biased variance); https://github.com/ml-explore/mlx/pull/3817
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]
    if count < 2:
        raise ValueError("one value per channel")
    dims = _reduced_dims(x)
    mean, centred = _centre(x, dims)
    var = (centred * centred).mean(dim=dims)
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():
        new_mean = (1 - momentum) * running_mean + momentum * mean.detach()
        new_var = (1 - momentum) * running_var + momentum * var.detach()
    return y, new_mean, new_var
