"""merge_lora records gradients, so the merged serving weight requires grad and holds the adapter's graph.

Overrides: merge_lora
"""


def merge_lora(weight, lora_a, lora_b, alpha):
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    return weight + (alpha / lora_a.shape[0]) * (lora_b @ lora_a)
