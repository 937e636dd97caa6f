"""skips the finiteness check of the loss inputs.

Overrides: _all_finite
"""


def _all_finite(tensor):
    return True
