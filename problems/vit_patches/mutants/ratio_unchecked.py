"""This is what you get when a mask_ratio outside [0, 1] is accepted instead of refused with a ValueError: a ratio of 1.5 asks for a negative number of patches.

Overrides: check_masking_inputs
"""

_reference_check_masking_inputs = check_masking_inputs


def check_masking_inputs(tokens, mask_ratio, noise):
    number = isinstance(mask_ratio, int | float) and not isinstance(mask_ratio, bool)
    if number and mask_ratio == mask_ratio and abs(mask_ratio) != float("inf"):
        mask_ratio = min(max(mask_ratio, 0.0), 1.0)
    _reference_check_masking_inputs(tokens, mask_ratio, noise)
