"""This is what you get when x_t is built in x0's own storage (x_t = x0; x_t *= 1 - t; x_t += t x1), which overwrites the caller's noise (and fails outright when x0 requires grad).

Overrides: conditional_path
"""


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    tt = _per_sample(t, x0)
    u = _target(x0, x1, sigma_min)
    x_t = x0
    x_t *= 1 - (1 - sigma_min) * tt
    x_t += tt * x1
    return x_t, u
