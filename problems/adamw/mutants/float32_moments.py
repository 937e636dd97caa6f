"""The moving averages are kept in float32 whatever the parameter's dtype, so float64 state loses precision.

Overrides: adamw_step
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    with torch.no_grad():
        new_param, new_exp_avg, new_exp_avg_sq = _adamw_update(
            param.detach(), grad.detach().float(), exp_avg.detach().float(), exp_avg_sq.detach().float(), step, lr,
            *betas, eps, weight_decay)
    return new_param.to(param.dtype), new_exp_avg, new_exp_avg_sq
