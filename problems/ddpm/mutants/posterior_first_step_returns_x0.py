"""This is what you get when a batch that is entirely at t = 0 returns x0 itself as the mean (its value there): the caller's mean is then the model's prediction tensor, so an in-place update of one (mean.add_(noise), x0.clamp_(-1, 1)) silently changes the other.

Overrides: posterior_mean_variance
"""

import torch


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    if bool((t == 0).all()):
        return x0, torch.zeros(t.shape, dtype=x0.dtype)  # the first step: mean x0, variance 0
    alphas, alpha_bar, alpha_bar_prev = _cumulative(betas)
    beta = betas.double()
    x0_coef = alpha_bar_prev.sqrt() * beta / (1 - alpha_bar)
    xt_coef = alphas.sqrt() * (1 - alpha_bar_prev) / (1 - alpha_bar)
    variance = (1 - alpha_bar_prev) / (1 - alpha_bar) * beta
    mean = _per_example(x0_coef, t, x0).to(x0.dtype) * x0 + _per_example(xt_coef, t, x0).to(x0.dtype) * xt
    return mean, variance[t].to(x0.dtype)
