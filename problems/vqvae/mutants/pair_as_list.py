"""This is what you get when quantize returns [z_q, indices], a list: unpacking still works, but the contract promises a tuple, and code that tests isinstance(result, tuple) or uses it as a dictionary key breaks.

Overrides: quantize
"""


def quantize(z_e, codebook):
    check_latents(z_e, codebook)
    indices = _nearest(z_e.detach(), codebook.detach())
    z_q = z_e + (codebook.detach()[indices] - z_e).detach()
    return [z_q, indices]
