"""This is what you get when beta is checked only for being a number, so True and False pass as 1 and 0.

Overrides: vq_loss
"""

import math


def _loose_beta(beta):
    if not isinstance(beta, int | float):
        raise TypeError(f"beta must be a Python int or float, got {type(beta).__name__}")
    if not math.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be finite and >= 0, got {beta}")
    return float(beta)


def vq_loss(z_e, codebook, indices, beta=0.25):
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    weight = _loose_beta(beta)
    chosen = codebook[indices]
    return ((z_e.detach() - chosen) ** 2).mean(), weight * ((z_e - chosen.detach()) ** 2).mean()
