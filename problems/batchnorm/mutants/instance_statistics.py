"""For 4-D inputs the statistics are taken over H and W of each example (instance norm), not over N too.

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
    if x.dim() == 2:
        return _reference_like(x, running_mean, running_var, weight, bias, momentum, eps, count)
    mean = x.mean(dim=(2, 3), keepdim=True)
    var = ((x - mean) ** 2).mean(dim=(2, 3), keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():
        new_mean = (1 - momentum) * running_mean + momentum * mean.mean(dim=(0, 2, 3)).detach()
        new_var = (1 - momentum) * running_var + momentum * var.mean(dim=(0, 2, 3)).detach() * count / (count - 1)
    return y, new_mean, new_var


def _reference_like(x, running_mean, running_var, weight, bias, momentum, eps, count):
    mean = x.mean(dim=0)
    var = ((x - mean) ** 2).mean(dim=0)
    y = (x - mean) / torch.sqrt(var + eps) * weight + bias
    with torch.no_grad():
        new_mean = (1 - momentum) * running_mean + momentum * mean.detach()
        new_var = (1 - momentum) * running_var + momentum * var.detach() * count / (count - 1)
    return y, new_mean, new_var
