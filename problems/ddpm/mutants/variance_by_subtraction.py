"""This is what you get when beta tilde is computed as beta - beta^2 abar_prev / (1 - abar): equal on paper, but at t = 0 it leaves rounding noise (possibly negative, and its square root NaN) instead of exactly 0.

Overrides: posterior_mean_variance
"""

_reference_posterior = posterior_mean_variance


def posterior_mean_variance(x0, xt, t, betas):
    mean, _ = _reference_posterior(x0, xt, t, betas)
    _, alpha_bar, alpha_bar_prev = _cumulative(betas)
    beta = betas.double()
    variance = beta - beta * beta * alpha_bar_prev / (1 - alpha_bar)
    return mean, variance[t].to(x0.dtype)
