"""VQ-VAE (van den Oord et al., 2017): nearest-code quantisation and the codebook and commitment losses.

Implement quantize and vq_loss below. The validation helpers are supplied in helpers.py (shown read-only under
the editor): each function already calls them; keep those calls. torch.nn.functional (mse_loss, embedding) and
torch.cdist are allowed.
"""

import torch
import torch.nn.functional as F

from helpers import check_beta, check_indices, check_latents


def quantize(z_e, codebook):
    """(z_q, indices) for z_e [N, D] and codebook [K, D].

    indices[i] is the row of the codebook nearest to z_e[i] in squared Euclidean distance (ties: the smallest
    index), as int64 [N]. z_q [N, D] holds those codebook rows in the forward pass, while its gradient passes
    straight through to z_e (and never into the codebook).
    """
    check_latents(z_e, codebook)
    raise NotImplementedError("quantize: find the nearest codebook row, then apply the straight-through trick")


def vq_loss(z_e, codebook, indices, beta=0.25):
    """(codebook_loss, commitment_loss), two 0-d tensors.

    codebook_loss = mean((sg[z_e] - codebook[indices])^2): trains only the codebook.
    commitment_loss = beta * mean((z_e - sg[codebook[indices]])^2): trains only the encoder.
    """
    check_latents(z_e, codebook)
    check_indices(indices, z_e, codebook)
    check_beta(beta)
    raise NotImplementedError("vq_loss: two mean squared errors, each with a stop-gradient on one side")
