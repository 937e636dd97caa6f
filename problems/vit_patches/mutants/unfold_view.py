"""This is what you get when the patches are cut with unfold but the [B, C, rows, columns, P, P] result is viewed as [B, N, P*P*C] without moving the channel axis: tokens mix pixels of different patches and channels.

Source: gupta-abhay/pytorch-vit issue #7 ("layout for vit: NCHW or NHWC?"): unfold twice then view(B, -1, flatten_dim) mixes data from different channels and blocks.

Overrides: _patches
"""


def _patches(images, patch_size):
    b, c, h, w = images.shape
    p = patch_size
    blocks = images.unfold(2, p, p).unfold(3, p, p)  # [B, C, H/P, W/P, P, P]
    return blocks.contiguous().view(b, -1, p * p * c).clone()
