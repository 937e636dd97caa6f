"""The averages and the weights are updated in place, as torch.optim.AdamW does, so the caller's tensors change.

Overrides: adamw_step
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denominator = (exp_avg_sq / (1 - beta2**step)).sqrt() + eps
        new_param = param.detach() * (1 - lr * weight_decay) - lr / (1 - beta1**step) * exp_avg / denominator
    return new_param, exp_avg.clone(), exp_avg_sq.clone()
