"""For 4-D inputs the statistics are taken over N only, giving one mean per channel and position.

Overrides: batch_norm_train
Source: https://github.com/Nico-Curti/NumPyNet/issues/7 (BatchNorm forward with mean and var over axis 0 only)
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]
    if count < 2:
        raise ValueError("one value per channel")
    mean = x.mean(dim=0, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=0, keepdim=True)
    y = (x - mean) / torch.sqrt(var + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    dims = _reduced_dims(x)
    with torch.no_grad():
        batch_mean = x.mean(dim=dims)
        batch_var = x.var(dim=dims, unbiased=True)
        new_mean = (1 - momentum) * running_mean + momentum * batch_mean.detach()
        new_var = (1 - momentum) * running_var + momentum * batch_var.detach()
    return y, new_mean, new_var
