"""This is what you get when x0_hat is scaled by abar_prev instead of sqrt(abar_prev).

Overrides: ddim_step
Source: mathpluscode/ImgX-DiffSeg issue #4 (ddim_sample used coeff_start = alphas_cumprod_prev, fixed to its square root)
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    direction = math.sqrt(max(1 - alpha_bar_prev - sigma**2, 0.0)) * eps
    x_prev = alpha_bar_prev * x0 + direction
    if sigma > 0:
        x_prev = x_prev + sigma * noise
    return x_prev
