"""This is what you get when merge_lora forms B A and the sum in float32 and casts back to the weight's dtype:
float64 weights get a merged weight that carries float32 rounding errors.

Source: axolotl-ai-cloud/axolotl PR #3095 (its efficient LoRA merge goes through float32 whatever the weight's dtype)
Overrides: merge_lora
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():
        delta = (alpha / lora_a.shape[0]) * (lora_b.float() @ lora_a.float())
        return (weight.float() + delta).to(weight.dtype)
