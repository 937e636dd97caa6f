"""This is what you get when the indices are returned as int32 instead of int64.

Overrides: quantize
"""

import torch


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    indices = _nearest(z_e.detach(), codebook.detach())
    chosen = codebook.detach()[indices]
    return z_e + (chosen - z_e).detach(), indices.to(torch.int32)
