"""This is what you get when the target stays x1 - x0 with sigma_min > 0, while the path shrinks x0 by (1 - sigma_min) t.

Overrides: _target
"""


def _target(x0, x1, sigma_min):
    return x1 - x0
