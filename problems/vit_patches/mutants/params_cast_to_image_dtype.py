"""This is what you get when weight, bias, cls_token and pos_embed of another dtype are silently cast to the images' dtype instead of refused with a TypeError: a float64 checkpoint meets float32 images and half its precision disappears unnoticed.

Overrides: patch_embed
"""

_reference_patch_embed = patch_embed


def patch_embed(images, weight, bias, cls_token, pos_embed, patch_size):
    tensors = (images, weight, bias, cls_token, pos_embed)
    if all(isinstance(t, torch.Tensor) for t in tensors) and all(t.is_floating_point() for t in tensors):
        weight, bias, cls_token, pos_embed = (t.to(images.dtype) for t in tensors[1:])
    return _reference_patch_embed(images, weight, bias, cls_token, pos_embed, patch_size)
