"""This is what you get when the number of channels is hard-coded to 3 (RGB): any other C fails or scrambles the patches.

Source: huggingface/transformers PR #17491 ("[ViT_MAE] fix num of channels in patchify and unpatchify"): imgs.reshape(shape=(imgs.shape[0], 3, h, p, w, p)) hard-coded three channels.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, _, h, w = images.shape
    p = patch_size
    grid = images.reshape(b, 3, h // p, p, w // p, p)
    return grid.permute(0, 2, 4, 3, 5, 1).reshape(b, (h // p) * (w // p), p * p * 3).clone()
