"""AdamW, one step. Implement adamw_step below; the helpers of helpers.py (read-only under the editor) check the
contract for you."""

import math

import torch

from helpers import check_hyperparameters, check_state


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    """One AdamW update. Returns (new_param, new_exp_avg, new_exp_avg_sq), three new tensors.

    param, grad, exp_avg, exp_avg_sq: tensors of one shape and dtype; exp_avg / exp_avg_sq are the running
    averages of the gradient and of its square (zeros before the first step).
    step: the 1-based count of updates including this one (1 on the first call).
    """
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    # 1. decoupled decay of the weights: param * (1 - lr * weight_decay); it never touches the moments
    # 2. the two moving averages, of grad and of grad squared
    # 3. bias-correct both averages with 1 - beta ** step
    # 4. the step: lr * m_hat / (sqrt(v_hat) + eps), subtracted from the decayed weights
    # Return new tensors that do not require grad, and leave the inputs unchanged.
    raise NotImplementedError("adamw_step: follow steps 1-4 above")
