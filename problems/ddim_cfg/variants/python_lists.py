"""A correct solution with the schedule built from Python lists, sigma^2 from the posterior variance written as one
fraction, and guidance written as an extrapolation eps_cond + w (eps_cond - eps_uncond)."""

import math

import torch

from helpers import check_guidance_inputs, check_step_counts, check_step_inputs


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps
    steps = list(range(0, num_train_steps, stride))[:num_sampling_steps]
    steps.reverse()
    prev = steps[1:] + [-1]
    return torch.tensor(steps, dtype=torch.int64), torch.tensor(prev, dtype=torch.int64)


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    a, p = float(alpha_bar_t), float(alpha_bar_prev)
    sigma2 = eta**2 * (1 - p) * (p - a) / ((1 - a) * p)
    x0 = (x_t - math.sqrt(1 - a) * eps) / math.sqrt(a)
    out = math.sqrt(p) * x0 + math.sqrt(max(1 - p - sigma2, 0.0)) * eps
    if sigma2 > 0:
        out = out + math.sqrt(sigma2) * noise
    return out


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return eps_cond + w * (eps_cond - eps_uncond)
