"""its own momentum check lets bool through.

Overrides: validate_momentum_inputs
"""

import math

_reference_validate_momentum_inputs = validate_momentum_inputs


def validate_momentum_inputs(query, key, momentum):
    if not isinstance(momentum, (int, float)) or not math.isfinite(momentum):
        raise TypeError("momentum must be a number")
    if not 0.0 <= momentum <= 1.0:
        raise ValueError(f"momentum must lie in [0, 1], got {momentum}")
    _reference_validate_momentum_inputs(query, key, 0.5)  # the supplied checks of the tensors
