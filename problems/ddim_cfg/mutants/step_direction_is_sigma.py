"""This is what you get when the direction's coefficient is sigma instead of sqrt(1 - abar_prev - sigma^2): with eta = 0 the step drops eps altogether.

Overrides: ddim_step
Source: jsboige/CoursIA pull request #16158 (a home-made DDIM sampler computed dir_eps = sigma2.clamp(min=0).sqrt() * eps)
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    x_prev = math.sqrt(alpha_bar_prev) * x0 + sigma * eps
    if sigma > 0:
        x_prev = x_prev + sigma * noise
    return x_prev
