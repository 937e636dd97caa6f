"""This is what you get when the posterior variance is beta_t itself instead of beta tilde = (1 - abar_prev) / (1 - abar) * beta_t.

Overrides: posterior_mean_variance
Source: zoubohao/DenoisingDiffusionProbabilityModel-ddpm- issue #18 (betas used where posterior_var was expected)
"""


def posterior_mean_variance(x0, xt, t, betas):
    check_pair(("x0", "xt"), x0, xt)
    check_table("betas", betas, x0.device, one_allowed=False)
    check_steps(t, x0.shape[0], betas.shape[0], x0.device)
    alphas, alpha_bar, alpha_bar_prev = _cumulative(betas)
    beta = betas.double()
    x0_coef = alpha_bar_prev.sqrt() * beta / (1 - alpha_bar)
    xt_coef = alphas.sqrt() * (1 - alpha_bar_prev) / (1 - alpha_bar)
    mean = _per_example(x0_coef, t, x0).to(x0.dtype) * x0 + _per_example(xt_coef, t, x0).to(x0.dtype) * xt
    return mean, beta[t].to(x0.dtype)
