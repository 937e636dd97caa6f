"""This is what you get when eta above 1 is accepted: the direction's variance 1 - abar_prev - sigma^2 can then go negative, so the contract refuses eta outside [0, 1].

Overrides: check_step_inputs
"""

_reference_check_step_inputs = check_step_inputs


def check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise):
    if isinstance(eta, float | int) and not isinstance(eta, bool) and math.isfinite(eta) and eta > 1:
        eta = 1.0
    _reference_check_step_inputs(x_t, eps, alpha_bar_t, alpha_bar_prev, eta, noise)
