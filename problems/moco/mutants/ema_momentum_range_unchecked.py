"""never checks that the momentum lies in [0, 1].

Overrides: validate_momentum_inputs
"""

from helpers import check_scalar

_reference_validate_momentum_inputs = validate_momentum_inputs


def validate_momentum_inputs(query, key, momentum):
    check_scalar("momentum", momentum)
    _reference_validate_momentum_inputs(query, key, 0.5)  # the supplied checks of the tensors
