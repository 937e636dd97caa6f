"""This is what you get when the posterior is returned as [mean, variance], a list: unpacking still works, but the contract promises a tuple.

Overrides: posterior_mean_variance
"""


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    alphas, alpha_bar, alpha_bar_prev = _cumulative(betas)
    beta = betas.double()
    x0_coef = alpha_bar_prev.sqrt() * beta / (1 - alpha_bar)
    xt_coef = alphas.sqrt() * (1 - alpha_bar_prev) / (1 - alpha_bar)
    variance = (1 - alpha_bar_prev) / (1 - alpha_bar) * beta
    mean = _per_example(x0_coef, t, x0).to(x0.dtype) * x0 + _per_example(xt_coef, t, x0).to(x0.dtype) * xt
    return [mean, variance[t].to(x0.dtype)]
