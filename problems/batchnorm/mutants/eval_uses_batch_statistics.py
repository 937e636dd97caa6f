"""Evaluation normalises with the batch's own statistics instead of the running ones.

Overrides: batch_norm_eval
"""


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    dims = _reduced_dims(x)
    mean = x.mean(dim=dims)
    var = ((x - _per_channel(mean, x)) ** 2).mean(dim=dims)
    return (x - _per_channel(mean, x)) / torch.sqrt(_per_channel(var, x) + eps) * _per_channel(weight, x) \
        + _per_channel(bias, x)
