"""This is what you get when 1 - abar_prev - sigma^2 goes into the square root unguarded: it rounds a hair below 0 when abar_prev is within an ulp of 1, and the step returns nan.

Overrides: ddim_step
"""


def ddim_step(x_t, eps, alpha_bar_t, alpha_bar_prev, eta=0.0, noise=None):
    check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
    sigma = _sigma(alpha_bar_t, alpha_bar_prev, eta)
    x0 = _predicted_x0(x_t, eps, alpha_bar_t)
    direction = torch.tensor(1 - alpha_bar_prev - sigma**2, dtype=torch.float64).sqrt().item() * eps
    x_prev = math.sqrt(alpha_bar_prev) * x0 + direction
    if sigma > 0:
        x_prev = x_prev + sigma * noise
    return x_prev
