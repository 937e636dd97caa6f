"""converts the temperature with float(), so a Tensor temperature is accepted.

Overrides: moco_loss
"""

import torch


_reference_moco_loss = moco_loss


def moco_loss(query, key, queue, temperature):
    if isinstance(temperature, torch.Tensor):
        temperature = float(temperature)
    return _reference_moco_loss(query, key, queue, temperature)
