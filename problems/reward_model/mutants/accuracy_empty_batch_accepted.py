"""This is what you get when an empty batch is not refused: the accuracy of no pairs is 0 / 0, and a nan (or a
made-up number) comes back instead of a ValueError.

Overrides: check_accuracy_inputs
"""

import torch

_reference_check_accuracy_inputs = check_accuracy_inputs


def check_accuracy_inputs(r_chosen, r_rejected):
    if isinstance(r_chosen, torch.Tensor) and r_chosen.dim() == 1 and r_chosen.shape[0] == 0:
        if isinstance(r_rejected, torch.Tensor) and r_rejected.shape == r_chosen.shape:
            if r_rejected.dtype == r_chosen.dtype and r_chosen.dtype in (torch.float32, torch.float64):
                return
    _reference_check_accuracy_inputs(r_chosen, r_rejected)
