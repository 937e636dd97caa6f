"""This is what you get when z_e is overwritten in place with its codes: the caller's encoder output is lost.

Overrides: quantize
"""

import torch


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    indices = _nearest(z_e.detach(), codebook.detach())
    with torch.no_grad():
        z_e.copy_(codebook[indices])
    return z_e.clone(), indices
