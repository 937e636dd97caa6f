"""This is what you get when alpha_bar_prev below alpha_bar_t is not refused: the step silently runs towards more noise (and a negative variance is floored at 0).

Overrides: check_step_inputs, _sigma
"""

_reference_check_step_inputs = check_step_inputs


def check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise):
    numbers = all(isinstance(v, float | int) and not isinstance(v, bool) for v in (alpha_bar_t, alpha_bar_prev))
    if numbers and 0 < alpha_bar_prev < alpha_bar_t < 1:
        _reference_check_step_inputs(x_t, eps, alpha_bar_prev, alpha_bar_t, eta, noise)
    else:
        _reference_check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)


def _sigma(alpha_bar_t, alpha_bar_prev, eta):
    variance = (1 - alpha_bar_prev) / (1 - alpha_bar_t) * (1 - alpha_bar_t / alpha_bar_prev)
    return eta * math.sqrt(max(variance, 0.0))
