"""This is what you get when x is not checked to lie in [0, 1]: a pixel of 255 or -1 quietly gives a meaningless cross-entropy.

Overrides: check_data
"""


def check_data(x, recon_logits, mu):
    if x.dim() < 2:
        raise ValueError("x must be [N, ...]")
    if recon_logits.shape != x.shape:
        raise ValueError("recon_logits must have x's shape")
    if x.shape[0] != mu.shape[0]:
        raise ValueError("x and mu must have the same N")
    if x[0].numel() < 1:
        raise ValueError("each example needs at least one pixel")
