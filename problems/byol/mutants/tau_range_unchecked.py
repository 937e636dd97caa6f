"""This is what you get when tau's type is checked but not its range: tau = 1.5 or -0.1 extrapolates past the two networks.

Overrides: check_tau
"""


def check_tau(tau):
    if isinstance(tau, bool) or not isinstance(tau, int | float):
        raise TypeError(f"tau must be a Python int or float, got {type(tau).__name__}")
