"""DDIM and classifier-free guidance: the validation helpers, supplied and read-only.

`from helpers import check_step_counts, check_step_inputs, check_guidance_inputs` in your solution (the starter
does). Each raises exactly the errors the contract promises: TypeError for the wrong kind of value, ValueError
for a value out of range or of the wrong shape."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_count(name, value, *, low=1):
    """TypeError unless a Python int (a bool is not one); ValueError below `low`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a Python int, got {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")


def check_number(name, value, *, low, high, low_closed, high_closed):
    """TypeError unless a Python int or float (not bool); ValueError unless finite and inside the interval."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
    above = value >= low if low_closed else value > low
    below = value <= high if high_closed else value < high
    if not math.isfinite(value) or not above or not below:
        interval = f"{'[' if low_closed else '('}{low}, {high}{']' if high_closed else ')'}"
        raise ValueError(f"{name} must lie in {interval}, got {value}")


def check_float_tensor(name, t):
    """TypeError unless a float32/float64 tensor; ValueError unless its values are finite."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def check_like(name, t, first_name, first):
    """t is a float tensor of first's dtype, shape and device."""
    check_float_tensor(name, t)
    if t.dtype != first.dtype:
        raise TypeError(f"{name} must have {first_name}'s dtype {first.dtype}, got {t.dtype}")
    if t.shape != first.shape:
        raise ValueError(f"{name} must have {first_name}'s shape {tuple(first.shape)}, got {tuple(t.shape)}")
    if t.device != first.device:
        raise ValueError(f"{name} must be on {first_name}'s device {first.device}, got {t.device}")


def check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def check_step_counts(num_train_steps, num_sampling_steps):
    """Two Python ints with 1 <= num_sampling_steps <= num_train_steps."""
    check_count("num_train_steps", num_train_steps)
    check_count("num_sampling_steps", num_sampling_steps)
    if num_sampling_steps > num_train_steps:
        raise ValueError(
            f"num_sampling_steps = {num_sampling_steps} is more than num_train_steps = "
            f"{num_train_steps}: a subsequence cannot be longer than the sequence"
        )


def check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise):
    """x_t, eps (and noise when given): float32/float64 tensors of one shape, dtype and device, finite.
    alpha_bar_t in (0, 1), alpha_bar_prev in (0, 1] and not below alpha_bar_t, eta in [0, 1]: Python numbers.
    noise may be None only when eta is 0."""
    check_float_tensor("x_t", x_t)
    check_like("eps", eps, "x_t", x_t)
    if noise is not None:
        check_like("noise", noise, "x_t", x_t)
    check_number("alpha_bar_t", alpha_bar_t, low=0, high=1, low_closed=False, high_closed=False)
    check_number("alpha_bar_prev", alpha_bar_prev, low=0, high=1, low_closed=False, high_closed=True)
    check_number("eta", eta, low=0, high=1, low_closed=True, high_closed=True)
    if alpha_bar_prev < alpha_bar_t:
        raise ValueError(
            f"alpha_bar_prev = {alpha_bar_prev} is below alpha_bar_t = {alpha_bar_t}: a sampling "
            "step goes to a less noisy step, whose alpha-bar is larger"
        )
    if eta > 0 and noise is None:
        raise ValueError(f"eta = {eta} > 0 makes the step random: pass the standard normal noise tensor")
    check_finite("x_t", x_t)
    check_finite("eps", eps)
    if noise is not None:
        check_finite("noise", noise)


def check_guidance_inputs(eps_cond, eps_uncond, w):
    """eps_cond, eps_uncond: float32/float64 tensors of one shape, dtype and device, finite; w a Python number
    >= 0."""
    check_float_tensor("eps_cond", eps_cond)
    check_like("eps_uncond", eps_uncond, "eps_cond", eps_cond)
    check_number("w", w, low=0, high=math.inf, low_closed=True, high_closed=False)
    check_finite("eps_cond", eps_cond)
    check_finite("eps_uncond", eps_uncond)
