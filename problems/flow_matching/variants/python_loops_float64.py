"""Sample by sample, in float64 internally, cast back to the inputs' dtype at the end: the path and the loss with
Python loops over the batch, the sampler with an explicit list of step times."""

import torch

from helpers import check_loss_inputs, check_path_inputs, check_sampler_inputs, mixture_velocity


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    a, b, tt = x0.double(), x1.double(), t.double()
    if x0.shape[0] == 0:
        return torch.empty_like(x0), (b - (1 - sigma_min) * a).to(x0.dtype)
    points = [(1 - (1 - sigma_min) * tt[i]) * a[i] + tt[i] * b[i] for i in range(x0.shape[0])]
    return torch.stack(points).to(x0.dtype), (b - (1 - sigma_min) * a).to(x0.dtype)


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    v = v_pred.double()
    u = x1.detach().double() - (1 - sigma_min) * x0.detach().double()
    total = v.new_zeros(())
    for i in range(v.shape[0]):
        total = total + ((v[i] - u[i]) ** 2).sum()
    return (total / v.shape[0]).to(v_pred.dtype)


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    times = [k / n_steps for k in range(n_steps)]
    x, m = x0.double(), means.double()
    states = [x]
    for t in times:
        x = x + (1.0 / n_steps) * mixture_velocity(x, t, m, sigma)
        states.append(x)
    return torch.stack(states).to(x0.dtype)
