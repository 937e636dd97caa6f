"""This is what you get when the two axes inside a patch are swapped, (p2 p1 c): each patch is flattened column by column, as if transposed.

Source: NVIDIA/flashdreams PR #284 (review on recipes/wan/autoencoder/vae.py): the patchify order (c ph pw) against the checkpoint's (c pw ph) transposes every patch and decodes to a checkerboard.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, c, h // p, p, w // p, p)
    return grid.permute(0, 2, 4, 5, 3, 1).reshape(b, (h // p) * (w // p), p * p * c).clone()
