"""This is what you get when t is detached inside the path, so x_t carries no gradient into the times (d x_t / d t should be u).

Overrides: conditional_path
"""


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    tt = _per_sample(t.detach(), x0)
    x_t = (1 - (1 - sigma_min) * tt) * x0 + tt * x1
    return x_t, _target(x0, x1, sigma_min)
