"""This is what you get when a constant channel is centred with x.mean: the float mean of equal values (10000.1 six
times in float32) is not exactly that value, so x - mean is not 0 and y is not the bias.

Overrides: batch_norm_train
"""


def batch_norm_train(x, running_mean, running_var, weight, bias, momentum=0.1, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("momentum", momentum, 0, 1)
    check_number("eps", eps, 0, math.inf, low_open=True)
    count = x.numel() // x.shape[1]  # N * H * W values per channel
    if count < 2:
        raise ValueError("training needs more than one value per channel (N * H * W > 1): the unbiased variance "
                         "of a single value is undefined")
    dims = _reduced_dims(x)
    mean = x.mean(dim=dims)  # (C,)
    centred = x - _per_channel(mean, x)  # the float32 mean of equal values is not always that value
    var = (centred * centred).mean(dim=dims)  # (C,) biased: divide by the count, used to normalise
    y = centred / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) + _per_channel(bias, x)
    with torch.no_grad():  # the running statistics are state, not part of the graph
        unbiased = var.detach() * (count / (count - 1))  # Bessel's correction for the estimate of the population
        new_mean = (1 - momentum) * running_mean.detach() + momentum * mean.detach()
        new_var = (1 - momentum) * running_var.detach() + momentum * unbiased
    return y, new_mean, new_var
