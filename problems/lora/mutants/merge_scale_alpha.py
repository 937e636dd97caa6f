"""merge_lora scales B A by alpha instead of alpha / r, so merged weights disagree with training.

Overrides: merge_lora
Source: https://github.com/Blaizzy/mlx-vlm/issues/845 (LoRaLayer uses raw alpha instead of alpha / rank, in training and merge)
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():
        return weight + alpha * (lora_b @ lora_a)
