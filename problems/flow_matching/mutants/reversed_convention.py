"""This is what you get when time runs the other way (t = 0 is the data, t = 1 the noise, as in the SD3 / diffusers convention): x_t = t x0 + (1 - t) x1 with u = x0 - x1.

Overrides: conditional_path, _target
"""


def _target(x0, x1, sigma_min):
    return (1 - sigma_min) * x0 - x1


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    s = 1 - _per_sample(t, x0)  # the time measured from the other end
    x_t = (1 - (1 - sigma_min) * s) * x0 + s * x1
    return x_t, _target(x0, x1, sigma_min)
