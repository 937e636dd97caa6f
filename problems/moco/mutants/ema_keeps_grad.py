"""computes the average with autograd on, so Parameter inputs give a result that requires grad.

Overrides: momentum_update
"""


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    m = float(momentum)
    return m * key + (1.0 - m) * query
