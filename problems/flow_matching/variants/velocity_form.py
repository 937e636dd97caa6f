"""The path written as x0 + t u (the same straight line), the loss through F.mse_loss with reduction="sum", and a
trajectory preallocated and filled step by step, with a tensor of per-sample times for the velocity."""

import torch
import torch.nn.functional as F

from helpers import check_loss_inputs, check_path_inputs, check_sampler_inputs, mixture_velocity


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    u = x1 - (1 - sigma_min) * x0
    tt = t.view(t.shape[0], *([1] * (x0.dim() - 1)))
    return x0 + tt * u, u  # (1 - (1 - s) t) x0 + t x1 = x0 + t (x1 - (1 - s) x0)


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    with torch.no_grad():
        u = x1 - (1 - sigma_min) * x0
    return F.mse_loss(v_pred, u, reduction="sum") / v_pred.shape[0]


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    n, d = x0.shape
    out = x0.new_empty((n_steps + 1, n, d))
    out[0] = x0
    times = torch.arange(n_steps, dtype=x0.dtype) / n_steps
    for k in range(n_steps):
        x = out[k].clone()
        out[k + 1] = x + mixture_velocity(x, times[k].expand(n), means, sigma) * (1.0 / n_steps)
    return out
