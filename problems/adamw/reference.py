"""Reference AdamW step (Adam with decoupled weight decay)."""

import torch

from helpers import check_hyperparameters, check_state


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
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():  # an optimiser step is not part of the graph
        return _adamw_update(param.detach(), grad.detach(), exp_avg.detach(), exp_avg_sq.detach(), step, lr,
                             beta1, beta2, eps, weight_decay)
