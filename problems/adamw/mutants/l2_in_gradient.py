"""Weight decay is added to the gradient (Adam with an L2 penalty), not applied to the weights.

Overrides: adamw_step
Source: https://github.com/pytorch/pytorch/issues/48793 (torch.optim.Adam's weight_decay is an L2 term in the gradient); https://github.com/anhquan0412/basic_model_scratch/issues/2
"""


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
    check_state(param, grad, exp_avg, exp_avg_sq)
    check_hyperparameters(step, lr, betas, eps, weight_decay)
    beta1, beta2 = betas
    with torch.no_grad():
        grad = grad.detach()
        grad = grad + weight_decay * param.detach()
        new_exp_avg = exp_avg * beta1 + grad * (1 - beta1)
        new_exp_avg_sq = exp_avg_sq * beta2 + grad * grad * (1 - beta2)
        m_hat = new_exp_avg / (1 - beta1**step)
        v_hat = new_exp_avg_sq / (1 - beta2**step)
        new_param = param.detach() - lr * m_hat / (v_hat.sqrt() + eps)
    return new_param, new_exp_avg, new_exp_avg_sq
