"""This is what you get when the mask is written 1 - dones on a bool tensor: torch refuses to subtract a bool tensor, so every call raises.

Overrides: _alive
"""


def _alive(dones, dtype):
    return (1 - dones).to(dtype)
