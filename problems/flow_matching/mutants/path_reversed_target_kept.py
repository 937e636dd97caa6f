"""This is what you get when the path runs from the data at t = 0 to the noise at t = 1 (x_t = t x0 + (1 - t) x1) while the target stays x1 - x0, so the model learns to walk against its own path.

Overrides: conditional_path
Source: lucidrains/rectified-flow-pytorch issue #14 (nano_flow.py noised the data as noise * t + data * (1 - t) while regressing onto data - noise and sampling from noise at t = 0; fixed by noise.lerp(data, t))
"""


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    tt = _per_sample(t, x0)
    x_t = tt * x0 + (1 - tt) * x1
    return x_t, _target(x0, x1, sigma_min)
