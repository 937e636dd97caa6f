"""Denoising diffusion (Ho et al., 2020). Implement linear_beta_schedule, q_sample and posterior_mean_variance
below; the helpers check the contract for you. Steps are zero-based: index t is the paper's step t + 1."""

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
    """T betas spaced linearly from beta_start (index 0) to beta_end (index T - 1), both included.

    Returns a new float64 tensor [T].
    """
    _check_schedule_args(T, beta_start, beta_end)
    raise NotImplementedError("linear_beta_schedule: T evenly spaced float64 values, both ends included")


def q_sample(x0, t, noise, alphas_cumprod):
    """x_t = sqrt(abar_t) * x0 + sqrt(1 - abar_t) * noise (Eq. 4), with abar_t = alphas_cumprod[t[i]] for example i.

    x0, noise: [N, ...]; t: int64 [N], zero-based; alphas_cumprod: [T]. Returns a tensor of x0's shape and dtype.
    """
    _check_pair(("x0", "noise"), x0, noise)
    _check_table("alphas_cumprod", alphas_cumprod, x0.device, one_allowed=True)
    _check_steps(t, x0.shape[0], alphas_cumprod.shape[0], x0.device)
    # 1. each example's abar from its own step
    # 2. shaped [N, 1, ..., 1] so it scales the whole example (not lined up with the last axis)
    # 3. the square roots of abar and of 1 - abar as the two coefficients
    raise NotImplementedError("q_sample: follow steps 1-3 above")


def posterior_mean_variance(x0, xt, t, betas):
    """Mean and variance of q(x_{t-1} | x_t, x_0) (Eqs. 6-7).

    x0, xt: [N, ...]; t: int64 [N], zero-based; betas: [T]. Returns (mean [N, ...], variance [N]) in x0's dtype.
    At t = 0 the mean is x0 and the variance 0.
    """
    _check_pair(("x0", "xt"), x0, xt)
    _check_table("betas", betas, x0.device, one_allowed=False)
    _check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    # 1. in float64: alphas = 1 - betas, their cumulative product, and the same shifted by one step with a 1 first
    # 2. the two weights of Eq. 7 and the variance beta tilde, for each example's step
    # 3. mean = weight_x0 * x0 + weight_xt * xt (weights shaped [N, 1, ..., 1]); cast both results to x0's dtype
    raise NotImplementedError("posterior_mean_variance: follow steps 1-3 above")
