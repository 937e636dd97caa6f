"""LoRA (Hu et al., 2021): a frozen linear layer plus a trainable low-rank update. Implement lora_forward and
merge_lora below; the helpers of helpers.py (read-only under the editor) check the contract for you."""

import math

import torch

from helpers import check_adapter, check_alpha, check_x_bias


def lora_forward(x, weight, bias, lora_a, lora_b, alpha):
    """x W^T + b + (alpha / r) (x A^T) B^T, with W and b frozen (no gradient ever reaches them).

    x: [..., in]; weight: [out, in]; bias: None or [out]; lora_a: [r, in]; lora_b: [out, r]. Returns [..., out].
    """
    check_adapter(weight, lora_a, lora_b)
    check_x_bias(x, bias, weight)
    check_alpha(alpha)
    # 1. the frozen layer: x times the detached weight transposed, plus the detached bias if given
    # 2. the update: x times lora_a transposed, then times lora_b transposed (never form B A here)
    # 3. add the update scaled by alpha / r, where r = lora_a.shape[0]
    raise NotImplementedError("lora_forward: follow steps 1-3 above")


def merge_lora(weight, lora_a, lora_b, alpha):
    """A new [out, in] weight W + (alpha / r) B A that does not require grad; weight itself is not modified."""
    check_adapter(weight, lora_a, lora_b)
    check_alpha(alpha)
    # without recording gradients: weight plus (alpha / r) times lora_b @ lora_a, as a new tensor
    raise NotImplementedError("merge_lora: weight + (alpha / r) * lora_b @ lora_a, as a new tensor")
