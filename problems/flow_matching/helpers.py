"""Flow matching: the validation helpers and the velocity field the sampler integrates, supplied and read-only.

`from helpers import check_path_inputs, check_loss_inputs, check_sampler_inputs, mixture_velocity` in your
solution. The checks raise exactly the errors the contract promises: TypeError for the wrong kind of value,
ValueError for a value out of range."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_like(name, t, like_name, like):
    """t has the dtype, shape and device of like."""
    _check_float_tensor(name, t)
    if t.dtype != like.dtype:
        raise TypeError(f"{name} must have {like_name}'s dtype {like.dtype}, got {t.dtype}")
    if t.shape != like.shape:
        raise ValueError(f"{name} must have {like_name}'s shape {tuple(like.shape)}, got {tuple(t.shape)}")
    if t.device != like.device:
        raise ValueError(f"{name} must be on {like_name}'s device {like.device}, got {t.device}")


def _check_number(name, value, *, low, low_closed, high=math.inf, high_closed=False):
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above = value >= low if low_closed else value > low
    below = value <= high if high_closed else value < high
    if not math.isfinite(value) or not above or not below:
        left, right = "[" if low_closed else "(", "]" if high_closed else ")"
        raise ValueError(f"{name} must lie in {left}{low}, {high}{right}, got {value}")


def _check_data_pair(x0, x1):
    """x0 (noise) and x1 (data): float32/float64 tensors of one shape [N, ...] (at least 1-D), dtype and device."""
    _check_float_tensor("x0", x0)
    if x0.dim() < 1:
        raise ValueError("x0 must be [N, ...] with a batch axis first, got a 0-d tensor")
    _check_like("x1", x1, "x0", x0)


def check_path_inputs(x0, x1, t, sigma_min):
    """x0, x1: [N, ...] of one float dtype (N = 0 is legal); t: [N] of the same dtype, values in [0, 1];
    sigma_min: a Python number in [0, 1); every tensor finite."""
    _check_data_pair(x0, x1)
    _check_float_tensor("t", t)
    if t.dtype != x0.dtype:
        raise TypeError(f"t must have x0's dtype {x0.dtype}, got {t.dtype}")
    if t.shape != x0.shape[:1]:
        raise ValueError(f"t must have shape [N] = {tuple(x0.shape[:1])}, one time per sample, got {tuple(t.shape)}")
    if t.device != x0.device:
        raise ValueError(f"t must be on x0's device {x0.device}, got {t.device}")
    _check_number("sigma_min", sigma_min, low=0, low_closed=True, high=1)
    for name, value in (("x0", x0), ("x1", x1), ("t", t)):
        _check_finite(name, value)
    if t.numel() and not bool(((t.detach() >= 0) & (t.detach() <= 1)).all()):
        raise ValueError("t must lie in [0, 1] (0 is the noise end, 1 the data end)")


def check_loss_inputs(v_pred, x0, x1, sigma_min):
    """v_pred, x0, x1: [N, ...] of one shape and float dtype with N >= 1; sigma_min a Python number in [0, 1)."""
    _check_data_pair(x0, x1)
    _check_like("v_pred", v_pred, "x0", x0)
    if x0.shape[0] < 1:
        raise ValueError("the loss is a mean over the batch: N must be at least 1, got an empty batch")
    _check_number("sigma_min", sigma_min, low=0, low_closed=True, high=1)
    for name, value in (("v_pred", v_pred), ("x0", x0), ("x1", x1)):
        _check_finite(name, value)


def check_sampler_inputs(x0, means, sigma, n_steps):
    """x0: [N, D] noise (N = 0 is legal); means: [K, D] of x0's dtype, K >= 1; sigma: a Python number > 0;
    n_steps: a Python int >= 1 (not a bool)."""
    _check_float_tensor("x0", x0)
    _check_float_tensor("means", means)
    if means.dtype != x0.dtype:
        raise TypeError(f"means must have x0's dtype {x0.dtype}, got {means.dtype}")
    _check_number("sigma", sigma, low=0, low_closed=False)
    if isinstance(n_steps, bool) or not isinstance(n_steps, int):
        raise TypeError(f"n_steps must be a Python int, got {type(n_steps).__name__}")
    if n_steps < 1:
        raise ValueError(f"n_steps must be >= 1, got {n_steps}")
    if x0.dim() != 2 or x0.shape[1] < 1:
        raise ValueError(f"x0 must be 2-D [N, D] with D >= 1, got shape {tuple(x0.shape)}")
    if means.dim() != 2 or means.shape[0] < 1 or means.shape[1] != x0.shape[1]:
        raise ValueError(f"means must be [K, D] = [K, {x0.shape[1]}] with K >= 1, got shape {tuple(means.shape)}")
    if means.device != x0.device:
        raise ValueError(f"means must be on x0's device {x0.device}, got {means.device}")
    _check_finite("x0", x0)
    _check_finite("means", means)


def mixture_velocity(x, t, means, sigma):
    """The exact marginal velocity v(x, t) of the straight path from N(0, I) to the mixture (1/K) sum_k
    N(means[k], sigma^2 I): the field a perfectly trained flow-matching model would output.

    x: [N, D]; t: a Python float in [0, 1] (one time for every sample) or a tensor [N] (a time per sample);
    means: [K, D]; sigma > 0. Returns [N, D] in x's dtype, differentiable in x and means.

    Given component k, x_t = (1 - t) x0 + t x1 is Gaussian with mean t m_k and variance s2 = (1 - t)^2 + t^2 sigma^2
    per coordinate, and E[x1 - x0 | x_t = x, k] = m_k + c (x - t m_k) with c = (t sigma^2 - (1 - t)) / s2. The
    components are weighted by their posterior probability given x: a softmax of -|x - t m_k|^2 / (2 s2)."""
    if not isinstance(x, torch.Tensor) or not isinstance(means, torch.Tensor):
        raise TypeError("mixture_velocity(x, t, means, sigma): x and means must be tensors")
    if x.dim() != 2 or means.dim() != 2 or means.shape[1] != x.shape[1]:
        raise ValueError(
            f"mixture_velocity: x must be [N, D] and means [K, D], got {tuple(x.shape)} and {tuple(means.shape)}"
        )
    if isinstance(t, torch.Tensor):
        if t.shape not in ((), (x.shape[0],)):
            raise ValueError(
                f"mixture_velocity: t must be a number or a tensor [N] = [{x.shape[0]}], got shape {tuple(t.shape)}"
            )
        t = t.to(x.dtype).reshape(-1, 1)  # [N, 1] (or [1, 1]): one time per sample
        centres = t.unsqueeze(2) * means  # [N, K, D] or [1, K, D]: t m_k
    elif isinstance(t, bool) or not isinstance(t, int | float):
        raise TypeError(f"mixture_velocity: t must be a Python float or a tensor, got {type(t).__name__}")
    else:
        centres = (t * means).unsqueeze(0)  # [1, K, D]
    s2 = (1 - t) ** 2 + (t * sigma) ** 2  # the variance of x_t given one component: a number, or [N, 1]
    c = (t * sigma**2 - (1 - t)) / s2
    offsets = x.unsqueeze(1) - centres  # [N, K, D]: x - t m_k
    weights = torch.softmax((offsets * offsets).sum(dim=2) / (-2 * s2), dim=1)  # [N, K]: p(k | x_t = x)
    # sum_k w_k (m_k + c (x - t m_k)) = (1 - c t) mbar + c x, with mbar = sum_k w_k m_k
    return (1 - c * t) * (weights @ means) + c * x  # [N, D]
