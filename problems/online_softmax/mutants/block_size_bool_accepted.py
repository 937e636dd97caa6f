"""This is what you get when block_size is checked with isinstance(block_size, int) alone: True and False are ints in Python, so block_size=True is taken as 1 instead of refused with TypeError.

Overrides: check_logits
"""

_reference_check_logits = check_logits


def check_logits(x, block_size):
    _reference_check_logits(x, int(block_size) if isinstance(block_size, bool) else block_size)
