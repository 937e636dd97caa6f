"""This is what you get when the finiteness rule is skipped: nan or infinite inputs return nan instead of raising
ValueError.

Overrides: check_views
"""

import torch

_reference_check_views = check_views  # the reference's own, before this patch replaces it


def check_views(z1, z2):
    # Every other rule still applies: the reference's checks see the inputs with nan and inf replaced.
    _reference_check_views(*(torch.nan_to_num(z) if isinstance(z, torch.Tensor) else z for z in (z1, z2)))
