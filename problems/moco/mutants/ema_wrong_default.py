"""uses 0.99 as the default momentum.

Overrides: momentum_update
"""


_reference_momentum_update = momentum_update


def momentum_update(query, key, momentum=0.99):
    return _reference_momentum_update(query, key, momentum)
