"""This is what you get when each patch is flattened channel first, (c p1 p2), as a convolution's weight is laid out, instead of (p1 p2 c) with the channel fastest.

Source: cloneofsimo/minRF dit.py: patchify permutes to (B, rows, columns, C, p, q) and flattens (c p q), while its unpatchify reads (p q c) (issue #6, "Wrong dimension order in unpatchify?").

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, c, h // p, p, w // p, p)
    return grid.permute(0, 2, 4, 1, 3, 5).reshape(b, (h // p) * (w // p), c * p * p).clone()
