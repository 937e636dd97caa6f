"""DDIM (Song, Meng & Ermon, 2021) and classifier-free guidance (Ho & Salimans, 2022). Implement ddim_timesteps,
ddim_step and classifier_free_guidance below; the helpers of helpers.py (read-only under the editor) check the
contract for you. Steps are zero-based indices into alphas_cumprod; -1 stands for "no noise", alpha-bar 1."""

import math

import torch

from helpers import check_guidance_inputs, check_step_counts, check_step_inputs


def ddim_timesteps(num_train_steps, num_sampling_steps):
    """(timesteps, prev_timesteps), two new int64 tensors [S] with S = num_sampling_steps.

    timesteps: i * (T // S) for i = S - 1 down to 0, T = num_train_steps. prev_timesteps[i] is the step visited
    after timesteps[i]: timesteps[i + 1], and -1 after the last one (step 0).
    """
    check_step_counts(num_train_steps, num_sampling_steps)
    raise NotImplementedError("ddim_timesteps: a constant stride T // S, descending, and the next step of each")


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    """One DDIM step from x_t (alpha-bar alpha_bar_t) to the earlier step (alpha-bar alpha_bar_prev).

    x_t, eps, noise: tensors of one shape and dtype; alpha_bar_t in (0, 1), alpha_bar_prev in [alpha_bar_t, 1];
    eta in [0, 1]; noise (standard normal) is required when eta > 0 and unused when eta = 0.
    Returns a new tensor of x_t's shape and dtype.
    """
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    # 1. x0_hat: solve x_t = sqrt(abar_t) x0 + sqrt(1 - abar_t) eps for x0
    # 2. sigma: eta times the standard deviation of the DDPM posterior for this jump (Eq. 16)
    # 3. sqrt(abar_prev) x0_hat + sqrt(1 - abar_prev - sigma^2) eps, plus sigma * noise when sigma > 0
    raise NotImplementedError("ddim_step: follow steps 1-3 above")


def classifier_free_guidance(eps_cond, eps_uncond, w):
    """The guided noise prediction (1 + w) * eps_cond - w * eps_uncond, w >= 0 (w = 0: eps_cond alone).

    eps_cond, eps_uncond: tensors of one shape and dtype. Returns a new tensor of that shape and dtype.
    """
    check_guidance_inputs(eps_cond, eps_uncond, w)
    raise NotImplementedError("classifier_free_guidance: the paper's weighting with guidance weight w")
