"""Flow matching (Lipman et al., 2023) on rectified flow's straight path (Liu, Gong & Liu, 2023).

Implement conditional_path, cfm_loss and euler_sample below. The validation helpers and the velocity field the
sampler integrates are supplied in helpers.py (shown read-only under the editor): each function already calls its
validation; keep those calls. Time runs from t = 0 (noise, x0) to t = 1 (data, x1).
"""

import torch

from helpers import check_loss_inputs, check_path_inputs, check_sampler_inputs, mixture_velocity


def conditional_path(x0, x1, t, sigma_min=0.0):
    """The point x_t of the straight path from noise x0 to data x1, and the path's velocity u.

    x0, x1: [N, ...] (any number of feature axes, N = 0 allowed); t: [N], one time in [0, 1] per sample.
    Returns the tuple (x_t, u), both shaped like x0:
        x_t = (1 - (1 - sigma_min) * t) * x0 + t * x1      (t[i] scales every element of sample i)
        u   = x1 - (1 - sigma_min) * x0
    Gradients flow into x0, x1 and t; no input is modified.
    """
    check_path_inputs(x0, x1, t, sigma_min)
    raise NotImplementedError("conditional_path: give t one singleton axis per feature axis, then interpolate")


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    """The conditional flow-matching loss, a 0-d tensor.

    v_pred: the model's velocity at (x_t, t), [N, ...]; x0, x1: the noise and data x_t was built from. The target
    is u = x1 - (1 - sigma_min) * x0. The loss is the squared error summed over each sample's features and
    averaged over the N samples. Only v_pred receives a gradient: the target is a constant.
    """
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    raise NotImplementedError("cfm_loss: squared error per sample (summed over features), then the batch mean")


def euler_sample(x0, means, sigma, n_steps):
    """Integrate dx/dt = v(x, t) from t = 0 to t = 1 with n_steps Euler steps; return the trajectory.

    x0: [N, D] noise; means: [K, D] and sigma > 0 describe the target mixture, whose exact velocity field is
    mixture_velocity(x, t, means, sigma) from helpers. Step k (k = 0 .. n_steps - 1) evaluates the velocity at
    t = k / n_steps, at the current x, and moves by it times 1 / n_steps. Returns [n_steps + 1, N, D]: a copy of x0
    first, the final sample last. Gradients flow into x0 and means; x0 is never modified.
    """
    check_sampler_inputs(x0, means, sigma, n_steps)
    raise NotImplementedError("euler_sample: n_steps steps of size 1 / n_steps, velocity read at each step's start")
