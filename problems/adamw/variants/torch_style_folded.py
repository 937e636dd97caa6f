"""Variant (correct): torch.optim.AdamW's arrangement: lerp, addcmul, the corrections folded into step size and denominator."""

import math

import torch

from helpers import check_hyperparameters, check_state


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():
        new_exp_avg = torch.lerp(exp_avg, grad, 1 - beta1)
        new_exp_avg_sq = torch.addcmul(exp_avg_sq * beta2, grad, grad, value=1 - beta2)
        step_size = lr / (1 - beta1**step)
        denominator = new_exp_avg_sq.sqrt() / math.sqrt(1 - beta2**step) + eps
        new_param = torch.addcdiv(param * (1 - lr * weight_decay), new_exp_avg, denominator, value=-step_size)
    return new_param, new_exp_avg, new_exp_avg_sq
