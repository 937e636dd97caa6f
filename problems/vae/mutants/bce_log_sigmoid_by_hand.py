"""This is what you get when the cross-entropy is written as -(x log s + (1 - x) log(1 - s)) with s = sigmoid(logits): log 0 gives inf and NaN at large logits.

Overrides: _bce_with_logits
Source: huggingface/candle issue #2561 (binary_cross_entropy_with_logit goes NaN once the sigmoid rounds to 1)
"""

import torch


def _bce_with_logits(logits, x):
    s = torch.sigmoid(logits)
    return -(x * torch.log(s) + (1 - x) * torch.log(1 - s))
