"""Reference DDIM sampling pieces (Song, Meng & Ermon, 2021) and classifier-free guidance (Ho & Salimans, 2022):
the strided timestep schedule, one generalised DDIM step (Eq. 12 with the sigma of Eq. 16) and the guided noise
prediction.

Steps are zero-based indices into a table alphas_cumprod of length num_train_steps; the step before step 0 is
written -1 and has alpha-bar 1 (no noise at all)."""

import math

import torch

from helpers import check_guidance_inputs, check_step_counts, check_step_inputs


def ddim_timesteps(num_train_steps, num_sampling_steps):
    check_step_counts(num_train_steps, num_sampling_steps)
    stride = num_train_steps // num_sampling_steps  # the paper's code: a constant integer stride
    ascending = torch.arange(num_sampling_steps, dtype=torch.int64) * stride  # (S,): 0, c, 2c, ..., (S - 1) c
    timesteps = ascending.flip(0)  # sampling runs from the noisiest step down to step 0
    prev_timesteps = torch.cat([timesteps[1:], timesteps.new_full((1,), -1)])  # the next one visited; -1 at the end
    return timesteps, prev_timesteps


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    """Eq. 16: eta times the standard deviation of the DDPM posterior for the jump from t to t_prev."""
    return eta * math.sqrt((1 - alpha_bar_prev) / (1 - alpha_bar_t) * (1 - alpha_bar_t / alpha_bar_prev))


def _predicted_x0(x_t, eps, alpha_bar_t):
    """Invert x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) eps for x0 (no clipping)."""
    return (x_t - math.sqrt(1 - alpha_bar_t) * eps) / math.sqrt(alpha_bar_t)


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    # 1 - abar_prev - sigma^2 >= 0 for eta <= 1; the max only guards against a rounding error below 0
    direction = math.sqrt(max(1 - alpha_bar_prev - sigma**2, 0.0)) * eps  # "the direction pointing to x_t"
    x_prev = math.sqrt(alpha_bar_prev) * x0 + direction
    if sigma > 0:  # eta = 0 (or a last step to alpha-bar 1) is deterministic: the noise is not used
        x_prev = x_prev + sigma * noise
    return x_prev


def classifier_free_guidance(eps_cond, eps_uncond, w):
    check_guidance_inputs(eps_cond, eps_uncond, w)
    return (1 + w) * eps_cond - w * eps_uncond  # Ho & Salimans Eq. 6: w = 0 is the conditional model alone
