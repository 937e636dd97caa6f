"""torch.lerp for the path (with the noise end scaled for sigma_min), the loss as an einsum of the flattened errors,
and a sampler that stacks its states at the end."""

import torch

from helpers import check_loss_inputs, check_path_inputs, check_sampler_inputs, mixture_velocity


def conditional_path(x0, x1, t, sigma_min=0.0):
    check_path_inputs(x0, x1, t, sigma_min)
    tt = t.reshape((-1,) + (1,) * (x0.dim() - 1)).expand_as(x0)
    # (1 - (1 - s) t) x0 + t x1 = lerp(x0, x1 + s x0, t)
    x_t = torch.lerp(x0, x1 + sigma_min * x0, tt)
    return x_t, x1 - (1 - sigma_min) * x0


def cfm_loss(v_pred, x0, x1, sigma_min=0.0):
    check_loss_inputs(v_pred, x0, x1, sigma_min)
    err = (v_pred - (x1 - (1 - sigma_min) * x0).detach()).reshape(v_pred.shape[0], -1)  # [N, features]
    return torch.einsum("nf,nf->", err, err) / err.shape[0]


def euler_sample(x0, means, sigma, n_steps):
    check_sampler_inputs(x0, means, sigma, n_steps)
    dt = 1.0 / n_steps
    states = [x0]
    for k in range(n_steps):
        states.append(states[-1] + dt * mixture_velocity(states[-1], k * dt, means, sigma))
    return torch.stack(states)
