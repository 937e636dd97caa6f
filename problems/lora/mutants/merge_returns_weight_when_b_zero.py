"""When lora_b is all zeros merge_lora returns weight itself, which then shares its storage.

Overrides: merge_lora
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    if not bool(lora_b.any()):
        return weight
    with torch.no_grad():
        return weight + (alpha / lora_a.shape[0]) * (lora_b @ lora_a)
