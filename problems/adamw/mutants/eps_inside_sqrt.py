"""eps is added inside the square root, sqrt(v_hat + eps), which damps small gradients a thousandfold.

Overrides: adamw_step
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():
        grad = grad.detach()
        decayed = param.detach() * (1 - lr * weight_decay)
        new_exp_avg = exp_avg * beta1 + grad * (1 - beta1)
        new_exp_avg_sq = exp_avg_sq * beta2 + grad * grad * (1 - beta2)
        m_hat = new_exp_avg / (1 - beta1**step)
        v_hat = new_exp_avg_sq / (1 - beta2**step)
        new_param = decayed - lr * m_hat / (v_hat + eps).sqrt()
    return new_param, new_exp_avg, new_exp_avg_sq
