"""normalises key.detach() in place, which writes into the caller's key.

Overrides: _unit_rows
"""


def _unit_rows(query, key, queue):
    k = key.detach()
    k /= k.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # [B, D], shares memory with key
    return _normalise_rows(query), k, _normalise_rows(queue.detach())
