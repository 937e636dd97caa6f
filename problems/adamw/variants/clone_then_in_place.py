"""Variant (correct): clone the state, then update the clones in place the way an optimiser does."""

import torch

from helpers import check_hyperparameters, check_state


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():
        p, m, v = (t.detach().clone() for t in (param, exp_avg, exp_avg_sq))
        g = grad.detach()
        p.mul_(1 - lr * weight_decay)
        m.mul_(beta1).add_(g, alpha=1 - beta1)
        v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
        denominator = (v / (1 - beta2**step)).sqrt_().add_(eps)
        p.addcdiv_(m / (1 - beta1**step), denominator, value=-lr)
    return p, m, v
