"""This is what you get when a position table longer than 1 + N rows is accepted and its first 1 + N rows used (pos_embed[:n + 1], as ViT code written for a maximum image size does) instead of refused with a ValueError: a table for another image size is silently misread.

Overrides: patch_embed
"""

_reference_patch_embed = patch_embed


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    if (isinstance(images, torch.Tensor) and images.dim() == 4 and isinstance(patch_size, int) and patch_size >= 1
            and isinstance(pos_embed, torch.Tensor) and pos_embed.dim() == 2):
        n = (images.shape[2] // patch_size) * (images.shape[3] // patch_size)
        if pos_embed.shape[0] > n + 1:
            pos_embed = pos_embed[: n + 1]
    return _reference_patch_embed(images, weight, bias, cls_token, pos_embed, patch_size)
