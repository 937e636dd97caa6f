"""This is what you get when the variance is computed as mean(x^2) - mean(x)^2, which cancels catastrophically for activations far from zero.

Source: PaddlePaddle/Paddle PR #33176 (the CPU group_norm_op.h computed x_var - x_mean * x_mean from running sums
and lost precision in float32).

Overrides: _statistics
"""


def _statistics(grouped):
    mean = grouped.mean(dim=-1, keepdim=True)
    var = (grouped * grouped).mean(dim=-1, keepdim=True) - mean * mean
    return grouped - mean, var
