"""Reference solution for ViT patches and MAE masking (Dosovitskiy et al., 2021; He et al., 2022). Trusted:
imported only in the judge's process."""

import torch

from helpers import check_embed_inputs, check_images, check_masking_inputs


def patchify(images, patch_size):
    """[B, C, H, W] -> [B, N, P*P*C]: patches in row-major order, each flattened (row, column, channel)."""
    check_images(images, patch_size)
    return _patches(images, patch_size)


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    """[B, 1 + N, D]: the class token then one linear token per patch, each plus its position embedding."""
    check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size)
    patches = _patches(images, patch_size)  # [B, N, K]
    tokens = patches @ weight.T + bias + pos_embed[1:]  # [B, N, D]: patch n takes position 1 + n
    cls = (cls_token + pos_embed[0]).expand(images.shape[0], 1, -1)  # [B, 1, D]: position 0 is the class token's
    return torch.cat([cls, tokens], dim=1)


def random_masking(tokens, mask_ratio, noise):
    """MAE's per-sample random masking of the patch tokens; the class token (row 0) always stays, first.

    Returns (kept [B, 1 + len_keep, D], mask [B, N] with 1 = removed, ids_restore [B, N] int64)."""
    check_masking_inputs(tokens, mask_ratio, noise)
    cls, patches = tokens[:, :1], tokens[:, 1:]  # the class token is never masked nor counted
    batch, length, dim = patches.shape
    len_keep = _len_keep(length, mask_ratio)

    ids_shuffle = _shuffle(noise)  # [B, N]: patch indices, the one to keep first at the front
    ids_restore = torch.argsort(ids_shuffle, dim=1)  # the inverse permutation
    ids_keep = ids_shuffle[:, :len_keep]  # [B, len_keep]
    kept = torch.gather(patches, 1, ids_keep.unsqueeze(-1).expand(batch, len_keep, dim))

    mask = torch.ones(batch, length, dtype=tokens.dtype, device=tokens.device)  # in shuffled order first...
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, 1, ids_restore)  # ...then back in the patches' own order
    return torch.cat([cls, kept], dim=1), mask, ids_restore


def _len_keep(length, mask_ratio):
    return int(length * (1 - mask_ratio))  # MAE's expression, evaluated in Python floats, rounded down


def _shuffle(noise):
    return torch.argsort(noise, dim=1, stable=True)  # ascending, ties to the lower index: smallest noise kept


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, c, h // p, p, w // p, p)  # [B, C, rows of patches, r, columns of patches, s]
    patches = grid.permute(0, 2, 4, 3, 5, 1)  # [B, row, column, r, s, C]: channel fastest, as in (p1 p2 c)
    # a new tensor even where the rearrangement happens to be a view of images (one channel and P = 1, say)
    return patches.reshape(b, (h // p) * (w // p), p * p * c).clone()
