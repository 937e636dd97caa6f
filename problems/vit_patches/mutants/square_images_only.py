"""This is what you get when the grid is taken as square, h = w = H / P: a rectangular image is cut wrongly or not at all.

Source: facebookresearch/mae models_mae.py: patchify asserts imgs.shape[2] == imgs.shape[3] and sets h = w = imgs.shape[2] // p (square images only; see issue #192).

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, _ = images.shape
    p = patch_size
    side = h // p
    grid = images.reshape(b, c, side, p, -1, p)
    return grid.permute(0, 2, 4, 3, 5, 1).reshape(b, side * side, p * p * c).clone()
