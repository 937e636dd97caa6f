"""Variant (correct): the whole step in float64, cast back to the inputs' dtype."""

import torch

from helpers import check_hyperparameters, check_state


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    dtype = param.dtype
    p, g, m, v = (t.detach().to(torch.float64) for t in (param, grad, exp_avg, exp_avg_sq))
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g.square()
    update = (m / (1 - beta1**step)) / ((v / (1 - beta2**step)).sqrt() + eps)
    p = p - lr * weight_decay * p - lr * update
    return p.to(dtype), m.to(dtype), v.to(dtype)
