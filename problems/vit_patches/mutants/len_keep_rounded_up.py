"""This is what you get when the number kept is N - int(N * mask_ratio), which rounds the kept count up, instead of int(N * (1 - mask_ratio)), which rounds it down.

Overrides: _len_keep
"""


def _len_keep(length, mask_ratio):
    return length - int(length * mask_ratio)
