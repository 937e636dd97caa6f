"""This is what you get when the value loss accepts a 0/1 integer mask (a tokenizer's attention_mask) instead of refusing it: the contract asks for a bool mask and a TypeError otherwise.

Overrides: check_value_inputs
"""

import torch

_reference_check_value_inputs = check_value_inputs


def check_value_inputs(values, old_values, returns, clip_eps, mask):
    if isinstance(mask, torch.Tensor) and mask.dtype != torch.bool and not mask.is_floating_point():
        mask = mask != 0
    _reference_check_value_inputs(values, old_values, returns, clip_eps, mask)
