"""This is what you get when the path ignores sigma_min, x_t = (1 - t) x0 + t x1, while the target uses it.

Overrides: conditional_path
"""


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    tt = _per_sample(t, x0)
    return (1 - tt) * x0 + tt * x1, _target(x0, x1, sigma_min)
