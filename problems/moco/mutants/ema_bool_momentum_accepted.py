"""its own momentum check lets bool through.

Overrides: _check_momentum
"""

import math


def _check_momentum(momentum):
    if not isinstance(momentum, (int, float)) or not math.isfinite(momentum):
        raise TypeError("momentum must be a number")
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    return float(momentum)
