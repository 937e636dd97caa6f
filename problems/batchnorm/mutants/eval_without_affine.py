"""Evaluation normalises with the running statistics but forgets to apply weight and bias.

Overrides: batch_norm_eval
"""


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    return (x - _per_channel(running_mean, x)) / torch.sqrt(_per_channel(running_var, x) + eps)
