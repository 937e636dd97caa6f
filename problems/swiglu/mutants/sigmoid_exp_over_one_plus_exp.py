"""This is what you get when the sigmoid is written exp(x) / (1 + exp(x)): exp(x) overflows for large positive x (beyond 88.7 in float32, 709.8 in float64) and the value becomes inf / inf = nan.

Source: NervanaSystems/ngraph pull request #3118 (the fused sigmoid computed exp(x) / (exp(x) + 1) and overflowed for big values)

Overrides: _silu
"""

import torch


def _silu(x):
    e = torch.exp(x)
    return x * e / (1 + e)
