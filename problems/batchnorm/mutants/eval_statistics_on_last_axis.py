"""This is what you get when the running statistics are broadcast as they are, shape [C], against the last axis:
that is the channel axis only for [N, C] input, and for [N, C, H, W] they land on the width (silently so when
W = C).

Overrides: batch_norm_eval
"""


def batch_norm_eval(x, running_mean, running_var, weight, bias, eps=1e-5):
    check_input(x)
    check_channel_tensors(x, running_mean, running_var, weight, bias)
    check_number("eps", eps, 0, math.inf, low_open=True)
    scale = weight / torch.sqrt(running_var + eps)  # [C], broadcast against x's last axis
    return (x - running_mean) * scale + bias
