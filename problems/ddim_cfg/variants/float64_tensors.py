"""A correct solution that computes the step in float64 tensors (coefficients included) and casts back, with
the step written as a combination of x_t, eps and noise: sqrt(p / a) x_t + (d - sqrt(p (1 - a) / a)) eps + s z."""

import torch

from helpers import check_guidance_inputs, check_step_counts, check_step_inputs

F64 = torch.float64


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    timesteps = torch.arange((num_sampling_steps - 1) * stride, -1, -stride, dtype=torch.int64)
    prev_timesteps = timesteps - stride
    prev_timesteps[-1] = -1
    return timesteps, prev_timesteps


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    a = torch.tensor(alpha_bar_t, dtype=F64)
    p = torch.tensor(alpha_bar_prev, dtype=F64)
    sigma = eta * torch.sqrt((1 - p) / (1 - a)) * torch.sqrt(1 - a / p)
    direction = torch.clamp(1 - p - sigma**2, min=0.0).sqrt()
    x_coef = torch.sqrt(p / a)
    eps_coef = direction - torch.sqrt(p * (1 - a) / a)
    out = x_coef * x_t.to(F64) + eps_coef * eps.to(F64)
    if float(sigma) > 0:
        out = out + sigma * noise.to(F64)
    return out.to(x_t.dtype)


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return ((1 + w) * eps_cond.to(F64) - w * eps_uncond.to(F64)).to(eps_cond.dtype)
