"""This is what you get when the number kept is round(N * (1 - mask_ratio)) instead of int(N * (1 - mask_ratio)), which rounds down.

Overrides: _len_keep
"""


def _len_keep(length, mask_ratio):
    return round(length * (1 - mask_ratio))
