"""This is what you get when the padded terms are selected away only after the exp: a padded exp that overflows to inf leaves the loss finite, but the backward pass multiplies its zero gradient by inf, 0 * inf = nan.

Overrides: _without_padding
"""


def _without_padding(mask, *logps):
    return list(logps)
