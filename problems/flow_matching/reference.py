"""Reference flow matching (Lipman et al., 2023; Liu, Gong & Liu, 2023): the straight conditional path and its
velocity, the conditional flow-matching loss, and an Euler sampler. Trusted: imported only in the judge's process.

Time runs from t = 0 (noise, x0) to t = 1 (data, x1)."""

import torch

from helpers import check_loss_inputs, check_path_inputs, check_sampler_inputs, mixture_velocity


def _per_sample(t, like):
    """t [N] shaped [N, 1, ..., 1], so that sample i's time scales every element of sample i."""
    return t.reshape(-1, *([1] * (like.dim() - 1)))


def _target(x0, x1, sigma_min):
    """The conditional velocity u = x1 - (1 - sigma_min) x0: the time derivative of the path, the same at every t."""
    return x1 - (1 - sigma_min) * x0


def conditional_path(x0, x1, t, sigma_min=0.0):
    """(x_t, u) with x_t = (1 - (1 - sigma_min) t) x0 + t x1 and u = x1 - (1 - sigma_min) x0, t one time per sample."""
    check_path_inputs(x0, x1, t, sigma_min)
    tt = _per_sample(t, x0)  # [N, 1, ..., 1]
    x_t = (1 - (1 - sigma_min) * tt) * x0 + tt * x1
    return x_t, _target(x0, x1, sigma_min)


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    """(1/N) sum_i |v_pred_i - u_i|^2: the squared error summed over each sample's features, averaged over samples."""
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    u = _target(x0.detach(), x1.detach(), sigma_min)  # the regression target is a constant: no gradient into it
    squared = (v_pred - u) ** 2
    per_sample = squared.reshape(squared.shape[0], -1).sum(dim=1)  # [N]: the squared norm of each sample's error
    return per_sample.mean()


def euler_sample(x0, means, sigma, n_steps):
    """Trajectory [n_steps + 1, N, D] of Euler steps x <- x + v(x, t_k) / n_steps with t_k = k / n_steps, k = 0 ..
    n_steps - 1, the velocity being the mixture's exact field evaluated at the left end of each step."""
    check_sampler_inputs(x0, means, sigma, n_steps)
    dt = 1.0 / n_steps
    x = x0
    trajectory = [x0.clone()]  # a copy: the result never shares storage with x0
    for k in range(n_steps):
        t = k / n_steps  # the left end of step k
        x = x + dt * mixture_velocity(x, t, means, sigma)  # out of place: x0 is never modified
        trajectory.append(x)
    return torch.stack(trajectory)
