"""uses the raw key rows without normalising them.

Overrides: _unit_rows
"""


def _unit_rows(query, key, queue):
    return _normalise_rows(query), key.detach(), _normalise_rows(queue.detach())
