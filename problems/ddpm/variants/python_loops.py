"""Variant: one example at a time, coefficients as Python floats (double precision), schedule from a list."""

import math

import torch

from helpers import check_pair, check_schedule_args, check_steps, check_table


def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    check_schedule_args(T, beta_start, beta_end)
    values = [beta_start + (beta_end - beta_start) * i / (T - 1) if T > 1 else beta_start for i in range(T)]
    return torch.tensor(values, dtype=torch.float64)


def q_sample(x0, t, noise, alphas_cumprod):
    check_pair(("x0", "noise"), x0, noise)
    check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    table = alphas_cumprod.double().tolist()
    rows = []
    for i in range(x0.shape[0]):
        abar = table[int(t[i])]
        rows.append(math.sqrt(abar) * x0[i] + math.sqrt(1.0 - abar) * noise[i])
    return torch.stack(rows) if rows else x0 * 1.0


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    beta = betas.double().tolist()
    abar, running = [], 1.0
    for b in beta:
        running *= 1.0 - b
        abar.append(running)
    means, variances = [], []
    for i in range(x0.shape[0]):
        s = int(t[i])
        prev = abar[s - 1] if s > 0 else 1.0
        w0 = math.sqrt(prev) * beta[s] / (1.0 - abar[s])
        wt = math.sqrt(1.0 - beta[s]) * (1.0 - prev) / (1.0 - abar[s])
        means.append(w0 * x0[i] + wt * xt[i])
        variances.append((1.0 - prev) / (1.0 - abar[s]) * beta[s])
    mean = torch.stack(means) if means else x0 * 1.0
    return mean, torch.tensor(variances, dtype=x0.dtype)
