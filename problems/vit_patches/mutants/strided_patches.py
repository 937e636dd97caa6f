"""This is what you get when H is split as (P, rows of patches) instead of (rows of patches, P), the einops pattern (p1 h) for (h p1): each "patch" gathers pixels spaced H / P apart instead of a contiguous block.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, c, p, h // p, p, w // p)  # [B, C, r, row of patches, s, column of patches]
    return grid.permute(0, 3, 5, 2, 4, 1).reshape(b, (h // p) * (w // p), p * p * c).clone()
