"""With lr = 0 the input param itself is returned as new_param (a shortcut), so the two share storage.

Overrides: adamw_step
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    with torch.no_grad():
        new_param, new_exp_avg, new_exp_avg_sq = _adamw_update(param.detach(), grad.detach(), exp_avg.detach(),
                                                               exp_avg_sq.detach(), step, lr, *betas, eps,
                                                               weight_decay)
    if lr == 0:
        return param, new_exp_avg, new_exp_avg_sq
    return new_param, new_exp_avg, new_exp_avg_sq
