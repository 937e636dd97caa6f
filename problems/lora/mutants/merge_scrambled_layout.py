"""merge_lora computes the update as A^T B^T reshaped to [out, in], which scrambles it (a reshape is not a transpose).

Overrides: merge_lora
Source: https://github.com/paiml/aprender/pull/2138 (the LoRA merge folded a scrambled delta through the wrong layout)
"""

import torch


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    with torch.no_grad():
        delta = (lora_a.T @ lora_b.T).reshape(weight.shape)
        return weight + (alpha / lora_a.shape[0]) * delta
