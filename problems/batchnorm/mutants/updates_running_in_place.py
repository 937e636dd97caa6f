"""The running statistics are updated in place (as nn.BatchNorm does) and then returned.

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
    dims = _reduced_dims(x)
    mean, centred = _centre(x, dims)
    var = (centred * centred).mean(dim=dims)
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():
        running_mean.mul_(1 - momentum).add_(momentum * mean)
        running_var.mul_(1 - momentum).add_(momentum * var * count / (count - 1))
    return y, running_mean.clone(), running_var.clone()
