"""Variant: index_select and expand for the coefficients; cumulative products in log space, with 1 - abar as
-expm1(sum log1p(-beta)), which is even more precise than 1 - cumprod for the first steps."""

import torch

from helpers import check_pair, check_schedule_args, check_steps, check_table


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    if T == 1:
        return torch.tensor([float(beta_start)], dtype=torch.float64)
    step = (beta_end - beta_start) / (T - 1)
    return beta_start + step * torch.arange(T, dtype=torch.float64)


def _expand(values, like):
    return values.view(values.shape[0], *([1] * (like.dim() - 1))).expand_as(like)


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    abar = alphas_cumprod.double().index_select(0, t)
    a = _expand(torch.sqrt(abar).to(x0.dtype), x0)
    b = _expand(torch.sqrt(1.0 - abar).to(x0.dtype), x0)
    return torch.addcmul(a * x0, b, noise)


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    beta = betas.double()
    log_alpha = torch.log1p(-beta)
    log_abar = torch.cumsum(log_alpha, 0)
    log_abar_prev = log_abar - log_alpha  # the sum up to t - 1: exactly 0 at t = 0
    one_minus_abar = -torch.expm1(log_abar)
    one_minus_prev = -torch.expm1(log_abar_prev)
    w0 = torch.exp(0.5 * log_abar_prev) * beta / one_minus_abar
    wt = torch.exp(0.5 * log_alpha) * one_minus_prev / one_minus_abar
    var = one_minus_prev / one_minus_abar * beta
    w0, wt, var = (v.index_select(0, t) for v in (w0, wt, var))
    mean = _expand(w0.to(x0.dtype), x0) * x0 + _expand(wt.to(x0.dtype), x0) * xt
    return mean, var.to(x0.dtype)
