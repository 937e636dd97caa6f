"""The step is computed inside the autograd graph, so the results require grad when param does.

Overrides: adamw_step
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    return _adamw_update(param, grad, exp_avg, exp_avg_sq, step, lr, *betas, eps, weight_decay)
