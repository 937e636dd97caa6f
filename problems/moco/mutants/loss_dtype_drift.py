"""computes in float64 and returns float64 even for float32 inputs.

Overrides: _unit_rows
"""


def _unit_rows(query, key, queue):
    return _normalise_rows(query.double()), _normalise_rows(key.detach().double()), _normalise_rows(queue.detach().double())
