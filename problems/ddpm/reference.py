"""Reference DDPM pieces (Ho et al., 2020): the linear noise schedule, the closed-form forward sample q(x_t | x_0)
(Eq. 4) and the forward-process posterior q(x_{t-1} | x_t, x_0) (Eqs. 6-7).

Time steps are zero-based: index t in [0, T) is the paper's step t + 1, so betas[t] is the paper's beta_{t+1}."""

import torch

from helpers import check_pair, check_schedule_args, check_steps, check_table


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    return torch.linspace(beta_start, beta_end, T, dtype=torch.float64)  # (T,), both ends included


def _per_example(values, t, like):
    """values[t] for each example, shaped [N, 1, ..., 1] so that it scales every element of example i."""
    return values[t].reshape(-1, *([1] * (like.dim() - 1)))


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    alpha_bar = alphas_cumprod.double()
    signal = _per_example(alpha_bar.sqrt(), t, x0).to(x0.dtype)  # (N, 1, ..., 1)
    noise_scale = _per_example((1 - alpha_bar).sqrt(), t, x0).to(x0.dtype)
    return signal * x0 + noise_scale * noise  # Eq. 4: sqrt(abar_t) x0 + sqrt(1 - abar_t) eps


def _cumulative(betas):
    """(alphas, alphas_cumprod, alphas_cumprod_prev) in float64: 1 - abar_t for small t is a difference of
    nearly equal numbers, which in float32 carries a relative error of eps32 / beta ~ 1e-3."""
    betas = betas.double()
    alphas = 1 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = torch.cat([alphas_cumprod.new_ones(1), alphas_cumprod[:-1]])  # abar before step 0 is 1
    return alphas, alphas_cumprod, alphas_cumprod_prev


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    alphas, alpha_bar, alpha_bar_prev = _cumulative(betas)
    beta = betas.double()
    x0_coef = alpha_bar_prev.sqrt() * beta / (1 - alpha_bar)  # Eq. 7, the weight of x0
    xt_coef = alphas.sqrt() * (1 - alpha_bar_prev) / (1 - alpha_bar)  # Eq. 7, the weight of x_t
    variance = (1 - alpha_bar_prev) / (1 - alpha_bar) * beta  # beta tilde: exactly 0 at t = 0
    mean = _per_example(x0_coef, t, x0).to(x0.dtype) * x0 + _per_example(xt_coef, t, x0).to(x0.dtype) * xt
    return mean, variance[t].to(x0.dtype)  # (N, ...) and (N,)
