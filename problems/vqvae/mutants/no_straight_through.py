"""This is what you get when z_q is the codebook rows themselves, with no straight-through copy: no gradient reaches the encoder.

Overrides: quantize
"""


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    indices = _nearest(z_e.detach(), codebook.detach())
    return codebook.detach()[indices], indices
