"""Denoising diffusion (Ho et al., 2020). Implement linear_beta_schedule, q_sample and posterior_mean_variance
below; the helpers of helpers.py (read-only under the editor) check the contract for you. Steps are zero-based:
index t is the paper's step t + 1."""

import math

import torch

from helpers import check_pair, check_schedule_args, check_steps, check_table


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    """T betas spaced linearly from beta_start (index 0) to beta_end (index T - 1), both included.

    Returns a new float64 tensor [T].
    """
    check_schedule_args(T, beta_start, beta_end)
    raise NotImplementedError("linear_beta_schedule: T evenly spaced float64 values, both ends included")


def q_sample(x0, t, noise, alphas_cumprod):
    """x_t = sqrt(abar_t) * x0 + sqrt(1 - abar_t) * noise (Eq. 4), with abar_t = alphas_cumprod[t[i]] for example i.

    x0, noise: [N, ...]; t: int64 [N], zero-based; alphas_cumprod: [T]. Returns a tensor of x0's shape and dtype.
    """
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    # 1. each example's abar from its own step
    # 2. shaped [N, 1, ..., 1] so it scales the whole example (not lined up with the last axis)
    # 3. the square roots of abar and of 1 - abar as the two coefficients
    raise NotImplementedError("q_sample: follow steps 1-3 above")


def posterior_mean_variance(x0, xt, t, betas):
    """Mean and variance of q(x_{t-1} | x_t, x_0) (Eqs. 6-7).

    x0, xt: [N, ...]; t: int64 [N], zero-based; betas: [T]. Returns (mean [N, ...], variance [N]) in x0's dtype.
    At t = 0 the mean is x0 and the variance 0.
    """
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    # 1. in float64: alphas = 1 - betas, their cumulative product, and the same shifted by one step with a 1 first
    # 2. the two weights of Eq. 7 and the variance beta tilde, for each example's step
    # 3. mean = weight_x0 * x0 + weight_xt * xt (weights shaped [N, 1, ..., 1]); cast both results to x0's dtype
    raise NotImplementedError("posterior_mean_variance: follow steps 1-3 above")
