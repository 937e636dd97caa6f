"""Variant (correct): one coordinate at a time in plain Python floats, reshaped back at the end."""

import math

import torch

from helpers import check_hyperparameters, check_state


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    correction1, correction2 = 1 - beta1**step, 1 - beta2**step
    flat = [t.detach().reshape(-1).tolist() for t in (param, grad, exp_avg, exp_avg_sq)]
    new_p, new_m, new_v = [], [], []
    for p, g, m, v in zip(*flat, strict=True):
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        new_m.append(m)
        new_v.append(v)
        new_p.append(p * (1 - lr * weight_decay) - lr * (m / correction1) / (math.sqrt(v / correction2) + eps))

    def tensor(values):
        return torch.tensor(values, dtype=param.dtype, device=param.device).reshape(param.shape)

    return tensor(new_p), tensor(new_m), tensor(new_v)
