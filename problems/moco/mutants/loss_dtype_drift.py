"""computes in float64 and returns float64 even for float32 inputs.

Overrides: _unit_rows
"""


def _unit_rows(query, key, queue):
    q, k, negatives = query.double(), key.detach().double(), queue.detach().double()
    return _normalise_rows(q), _normalise_rows(k), _normalise_rows(negatives)
