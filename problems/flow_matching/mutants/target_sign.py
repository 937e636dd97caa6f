"""This is what you get when the target velocity is x0 - x1, pointing from the data back to the noise.

Overrides: _target
"""


def _target(x0, x1, sigma_min):
    return (1 - sigma_min) * x0 - x1
