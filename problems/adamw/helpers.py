"""AdamW's validation helpers, supplied and read-only: `from helpers import check_hyperparameters, check_state`."""

import math

import torch

STATE_NAMES = ("param", "grad", "exp_avg", "exp_avg_sq")


def check_state(param, grad, exp_avg, exp_avg_sq):
    """TypeError unless all four are float32/float64 tensors of one dtype; ValueError unless they share param's
    shape and device, are finite, and exp_avg_sq >= 0."""
    tensors = (param, grad, exp_avg, exp_avg_sq)
    for name, tensor in zip(STATE_NAMES, tensors, strict=True):
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(tensor).__name__}")
        if tensor.dtype not in (torch.float32, torch.float64):
            raise TypeError(f"{name} must be float32 or float64, got {tensor.dtype}")
    for name, tensor in zip(STATE_NAMES[1:], tensors[1:], strict=True):
        if tensor.dtype != param.dtype:
            raise TypeError(f"{name} must have param's dtype {param.dtype}, got {tensor.dtype}")
        if tensor.device != param.device:
            raise ValueError(f"{name} must be on param's device {param.device}, got {tensor.device}")
        if tensor.shape != param.shape:
            raise ValueError(f"{name} must have param's shape {tuple(param.shape)}, got {tuple(tensor.shape)}")
    for name, tensor in zip(STATE_NAMES, tensors, strict=True):
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} must contain only finite values")
    if (exp_avg_sq < 0).any():
        raise ValueError("exp_avg_sq is an average of squares and cannot be negative")


def is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_hyperparameters(step, lr, betas, eps, weight_decay):
    """TypeError for a wrong kind (step not an int, betas not a tuple, a bool or tensor anywhere); ValueError
    for step < 1, two betas not in [0, 1), lr < 0, eps <= 0, weight_decay < 0 or a non-finite number."""
    if isinstance(step, bool) or not isinstance(step, int):
        raise TypeError(f"step must be a Python int, got {type(step).__name__}")
    if step < 1:
        raise ValueError(f"step counts this update from 1, got {step}")
    if not isinstance(betas, tuple):
        raise TypeError(f"betas must be a tuple (beta1, beta2), got {type(betas).__name__}")
    if len(betas) != 2:
        raise ValueError(f"betas must hold exactly two values (beta1, beta2), got {len(betas)}")
    for name, value in (("lr", lr), ("beta1", betas[0]), ("beta2", betas[1]), ("eps", eps),
                        ("weight_decay", weight_decay)):
        if not is_number(value):
            raise TypeError(f"{name} must be a Python int or float, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value}")
    if lr < 0:
        raise ValueError(f"lr must be >= 0, got {lr}")
    for name, beta in (("beta1", betas[0]), ("beta2", betas[1])):
        if not 0 <= beta < 1:
            raise ValueError(f"{name} must be in [0, 1), got {beta}")
    if eps <= 0:
        raise ValueError(f"eps must be > 0, got {eps}")
    if weight_decay < 0:
        raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")


# ---------------------------------------------------------------------------------------------- the experiment
# The run of the notes' chart, shared by the grader and the worker: the grader rebuilds every step of the run with
# this same function, so both sides compute the same bits.


def descent_run(functions, curvature, steps, lr):
    """Your adamw_step on f(x) = 0.5 * sum(curvature * x^2) from x = 1 and zero moments, without weight decay, as
    the grader makes it: each step's gradient is curvature * x. Returns each step's (new_param, new_exp_avg,
    new_exp_avg_sq). Each call gets a state of its own, so a function that writes to it changes nothing the run
    goes on from."""
    adamw_step = functions["adamw_step"]
    param = torch.ones(curvature.shape, dtype=torch.float64)
    exp_avg, exp_avg_sq = torch.zeros_like(param), torch.zeros_like(param)
    records = []
    for step in range(1, steps + 1):
        new = adamw_step(param.clone(), curvature * param, exp_avg.clone(), exp_avg_sq.clone(), step, lr,
                         weight_decay=0.0)
        records.append(new)
        param, exp_avg, exp_avg_sq = new
    return records
