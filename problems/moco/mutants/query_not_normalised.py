"""uses the raw query rows without normalising them.

Overrides: _unit_rows
"""


def _unit_rows(query, key, queue):
    return query, _normalise_rows(key.detach()), _normalise_rows(queue.detach())
