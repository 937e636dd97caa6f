"""Variant: index_select and expand for the coefficients; cumulative products in log space, with 1 - abar as
-expm1(sum log1p(-beta)), which is even more precise than 1 - cumprod for the first steps."""

import math

import torch


FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_number(name, value):
    """TypeError unless a Python int or float (not bool); ValueError unless finite."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")


def _check_schedule_args(T, beta_start, beta_end):
    if isinstance(T, bool) or not isinstance(T, int):
        raise TypeError(f"T must be a Python int, got {type(T).__name__}")
    if T < 1:
        raise ValueError(f"T must be >= 1, got {T}")
    _check_number("beta_start", beta_start)
    _check_number("beta_end", beta_end)
    if not 0 < beta_start <= beta_end < 1:
        raise ValueError(f"need 0 < beta_start <= beta_end < 1, got beta_start={beta_start}, beta_end={beta_end}")


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must contain only finite values")


def _check_pair(names, a, b):
    """Two data tensors of one [N, ...] shape (at least 1-D), dtype and device."""
    _check_float_tensor(names[0], a)
    _check_float_tensor(names[1], b)
    if b.dtype != a.dtype:
        raise TypeError(f"{names[1]} must have {names[0]}'s dtype {a.dtype}, got {b.dtype}")
    if a.dim() < 1:
        raise ValueError(f"{names[0]} must be [N, ...] with a batch axis, got a 0-d tensor")
    if b.shape != a.shape:
        raise ValueError(f"{names[1]} must have {names[0]}'s shape {tuple(a.shape)}, got {tuple(b.shape)}")
    if b.device != a.device:
        raise ValueError(f"{names[1]} must be on {names[0]}'s device {a.device}, got {b.device}")


def _check_steps(t, n, num_steps, device):
    """t: an int64 tensor [N] of zero-based steps in [0, T)."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"t must be a torch.Tensor of int64 step indices, got {type(t).__name__}")
    if t.dtype != torch.int64:
        raise TypeError(f"t must hold int64 step indices, got {t.dtype}")
    if t.shape != (n,):
        raise ValueError(f"t must have shape [N] = ({n},), one step per example, got {tuple(t.shape)}")
    if t.device != device:
        raise ValueError(f"t must be on the data's device {device}, got {t.device}")
    if n and (int(t.min()) < 0 or int(t.max()) >= num_steps):
        raise ValueError(f"t must be zero-based steps in [0, {num_steps}), got {t.tolist()}")


def _check_table(name, table, device, *, one_allowed):
    """A 1-D, non-empty schedule table with values in (0, 1], or (0, 1) when one_allowed is False."""
    _check_float_tensor(name, table)
    if table.dim() != 1 or table.shape[0] < 1:
        raise ValueError(f"{name} must be 1-D [T] with T >= 1, got shape {tuple(table.shape)}")
    if table.device != device:
        raise ValueError(f"{name} must be on the data's device {device}, got {table.device}")
    below_one = (table <= 1) if one_allowed else (table < 1)
    if not ((table > 0) & below_one).all():
        raise ValueError(f"{name} values must lie in (0, 1{']' if one_allowed else ')'}")



def linear_beta_schedule(T, beta_start=1e-4, beta_end=0.02):
    _check_schedule_args(T, beta_start, beta_end)
    if T == 1:
        return torch.tensor([float(beta_start)], dtype=torch.float64)
    step = (beta_end - beta_start) / (T - 1)
    return beta_start + step * torch.arange(T, dtype=torch.float64)


def _expand(values, like):
    return values.view(values.shape[0], *([1] * (like.dim() - 1))).expand_as(like)


def q_sample(x0, t, noise, alphas_cumprod):
    _check_pair(("x0", "noise"), x0, noise)
    _check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    _check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    abar = alphas_cumprod.double().index_select(0, t)
    a = _expand(torch.sqrt(abar).to(x0.dtype), x0)
    b = _expand(torch.sqrt(1.0 - abar).to(x0.dtype), x0)
    return torch.addcmul(a * x0, b, noise)


def posterior_mean_variance(x0, xt, t, betas):
    _check_pair(("x0", "xt"), x0, xt)
    _check_table("betas", betas, x0.device, one_allowed=False)
    _check_steps(t, x0.shape[0], betas.shape[0], x0.device)
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
