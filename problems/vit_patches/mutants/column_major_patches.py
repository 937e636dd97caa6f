"""This is what you get when the patches are numbered down each column first (column-major) instead of along each row first.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, c, h // p, p, w // p, p)
    return grid.permute(0, 4, 2, 3, 5, 1).reshape(b, (h // p) * (w // p), p * p * c).clone()
