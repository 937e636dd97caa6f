"""short-cuts m = 0 and m = 1 by returning query.detach() or key.detach(), which share storage.

Overrides: momentum_update
"""


_reference_momentum_update = momentum_update


def momentum_update(query, key, momentum=0.999):
    validate_momentum_inputs(query, key, momentum)
    if momentum == 0:
        return query.detach()
    if momentum == 1:
        return key.detach()
    return _reference_momentum_update(query, key, momentum)
