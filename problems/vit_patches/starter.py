"""ViT patches and MAE's random masking (Dosovitskiy et al., 2021; He et al., 2022).

Implement patchify, patch_embed and random_masking below. The validation helpers are supplied in helpers.py (shown
read-only under the editor): each function already calls them; keep those calls.
"""

import torch

from helpers import check_embed_inputs, check_images, check_masking_inputs


def patchify(images, patch_size):
    """Cut images [B, C, H, W] into P x P patches: a new tensor [B, N, P*P*C], N = (H / P) * (W / P).

    Patch n = i * (W / P) + j is the patch in row i, column j of the grid (row-major). Its pixel (r, s) of channel c
    goes to feature (r * P + s) * C + c: rows slowest, channel fastest (the (p1 p2 c) order).
    """
    check_images(images, patch_size)
    raise NotImplementedError("patchify: reshape to [B, C, H/P, P, W/P, P], permute, merge")


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    """ViT's input sequence [B, 1 + N, D] for weight [D, P*P*C], bias [D], cls_token [D], pos_embed [1 + N, D].

    Row 0 of each sample: cls_token + pos_embed[0]. Row 1 + n: patch n (as patchify flattens it) @ weight.T + bias
    + pos_embed[1 + n]. Every float input receives a gradient.
    """
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    raise NotImplementedError("patch_embed: project the patches, add positions, put the class token first")


def random_masking(tokens, mask_ratio, noise):
    """MAE's per-sample random masking of tokens [B, 1 + N, D] (row 0: the class token) with noise [B, N].

    len_keep = int(N * (1 - mask_ratio)). Per sample, ids_shuffle = stable ascending argsort of noise; the patches
    at ids_shuffle[:len_keep] are kept, in that order, after the class token. Returns (kept [B, 1 + len_keep, D],
    mask [B, N] in tokens' dtype with 1 = removed in the patches' own order, ids_restore [B, N] int64, the inverse
    permutation of ids_shuffle).
    """
    check_masking_inputs(tokens, mask_ratio, noise)
    raise NotImplementedError("random_masking: argsort the noise, gather the kept patches, build mask and ids_restore")
