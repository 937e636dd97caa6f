"""Reference AdamW step (Adam with decoupled weight decay). Hidden from learners."""

import math

import torch

STATE_NAMES = ("param", "grad", "exp_avg", "exp_avg_sq")


def _check_state(param, grad, exp_avg, exp_avg_sq):
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


def _is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_hyperparameters(step, lr, betas, eps, weight_decay):
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
        if not _is_number(value):
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


def _adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay):
    """The arithmetic of one step on valid, detached tensors."""
    decayed = param * (1 - lr * weight_decay)  # decoupled: the decay never enters the moments
    new_exp_avg = exp_avg * beta1 + grad * (1 - beta1)
    new_exp_avg_sq = exp_avg_sq * beta2 + grad * grad * (1 - beta2)
    m_hat = new_exp_avg / (1 - beta1**step)  # step is 1-based: the first update divides by 1 - beta1
    v_hat = new_exp_avg_sq / (1 - beta2**step)
    new_param = decayed - lr * m_hat / (v_hat.sqrt() + eps)  # eps after the square root
    return new_param, new_exp_avg, new_exp_avg_sq


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    _check_state(param, grad, exp_avg, exp_avg_sq)
    _check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():  # an optimiser step is not part of the graph
        return _adamw_update(param.detach(), grad.detach(), exp_avg.detach(), exp_avg_sq.detach(), step, lr,
                             beta1, beta2, eps, weight_decay)
