"""merge_lora adds the update into the given weight in place and returns it.

Overrides: merge_lora
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():
        return weight.add_((alpha / lora_a.shape[0]) * (lora_b @ lora_a))
