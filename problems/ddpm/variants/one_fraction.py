"""Variant: the posterior mean as one fraction (sqrt(abar_prev) beta x0 + sqrt(alpha) (1 - abar_prev) xt) / (1 - abar)
and the variance as beta - beta^2 abar_prev / (1 - abar) with t = 0 set to 0 explicitly; unsqueeze in a loop."""

import torch

from helpers import check_pair, check_schedule_args, check_steps, check_table


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    return torch.linspace(float(beta_start), float(beta_end), steps=T, dtype=torch.float64)


def _column(values, like):
    for _ in range(like.dim() - 1):
        values = values.unsqueeze(-1)
    return values


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    abar = _column(alphas_cumprod.double()[t], x0)
    return (abar.sqrt() * x0.double() + (1 - abar).sqrt() * noise.double()).to(x0.dtype)


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    beta = betas.double()
    abar = torch.cumprod(1 - beta, 0)
    abar_prev = torch.ones_like(abar)
    abar_prev[1:] = abar[:-1]
    b, a, ap = beta[t], abar[t], abar_prev[t]
    # beta tilde = beta (1 - abar_prev) / (1 - abar) = beta - beta^2 abar_prev / (1 - abar), since
    # 1 - abar = 1 - abar_prev (1 - beta); the subtraction leaves rounding noise at t = 0, so that step is set to 0
    variance = torch.where(t == 0, torch.zeros_like(b), b - b * b * ap / (1 - a))
    numerator = _column(ap.sqrt() * b, x0) * x0.double() + _column((1 - b).sqrt() * (1 - ap), x0) * xt.double()
    mean = numerator / _column(1 - a, x0)
    return mean.to(x0.dtype), variance.to(x0.dtype)
