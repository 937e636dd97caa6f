"""merge_lora adds B A without any scale.

Overrides: merge_lora
Source: https://github.com/hao-ai-lab/FastVideo/pull/870 (merge_lora_weights did not scale the update by alpha / rank)
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():
        return weight + lora_b @ lora_a
