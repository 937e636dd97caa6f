"""This is what you get when the key/value copies are built off the graph (from .detach(), as a cache buffer would
be): k and v get no gradient at all.

Overrides: _share_kv
"""


def _share_kv(t, num_heads):
    return t.detach().repeat_interleave(num_heads // t.shape[-3], dim=-3)
