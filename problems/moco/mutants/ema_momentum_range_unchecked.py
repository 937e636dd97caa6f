"""never checks that the momentum lies in [0, 1].

Overrides: _check_momentum
"""


def _check_momentum(momentum):
    return _check_real_scalar("momentum", momentum)
