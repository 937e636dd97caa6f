"""ViT patches and MAE masking: the validation helpers, supplied and read-only.

`from helpers import check_images, check_embed_inputs, check_masking_inputs` in your solution. Each raises exactly
the errors the contract promises: TypeError for the wrong kind of value, ValueError for a value out of range."""

import math

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_float_tensor(name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")


def _check_finite(name, t):
    if t.device.type != "meta" and not bool(torch.isfinite(t.detach()).all()):
        raise ValueError(f"{name} has non-finite entries (nan or inf)")


def _check_patch_size(patch_size):
    if isinstance(patch_size, bool) or not isinstance(patch_size, int):
        raise TypeError(f"patch_size must be a Python int, got {type(patch_size).__name__}")
    if patch_size < 1:
        raise ValueError(f"patch_size must be >= 1, got {patch_size}")


def _check_image_shape(images, patch_size):
    if images.dim() != 4:
        raise ValueError(f"images must be 4-D [B, C, H, W], got shape {tuple(images.shape)}")
    _, channels, height, width = images.shape
    if channels < 1:
        raise ValueError("images must have at least one channel")
    for name, size in (("H", height), ("W", width)):
        if size < patch_size or size % patch_size != 0:
            raise ValueError(
                f"{name} = {size} must be a positive multiple of patch_size = {patch_size}: the patches "
                "tile the image exactly, with nothing left over"
            )


def check_images(images, patch_size):
    """images: a float32/float64 tensor [B, C, H, W] of finite values (B = 0 is legal, C >= 1), with H and W
    positive multiples of patch_size. patch_size: a Python int >= 1 (not a bool)."""
    _check_float_tensor("images", images)
    _check_patch_size(patch_size)
    _check_image_shape(images, patch_size)
    _check_finite("images", images)


def check_embed_inputs(images, weight, bias, cls_token, pos_embed, patch_size):
    """images as in check_images; weight [D, P*P*C], bias [D], cls_token [D], pos_embed [1 + N, D] with
    N = (H / P) * (W / P) and D >= 1; every tensor float32/float64 of images' dtype, on images' device, finite."""
    tensors = (
        ("images", images),
        ("weight", weight),
        ("bias", bias),
        ("cls_token", cls_token),
        ("pos_embed", pos_embed),
    )
    for name, t in tensors:
        _check_float_tensor(name, t)
    for name, t in tensors[1:]:
        if t.dtype != images.dtype:
            raise TypeError(f"{name} must have images' dtype {images.dtype}, got {t.dtype}")
    _check_patch_size(patch_size)
    _check_image_shape(images, patch_size)
    _, channels, height, width = images.shape
    num_patches = (height // patch_size) * (width // patch_size)
    features = patch_size * patch_size * channels
    if weight.dim() != 2 or weight.shape[0] < 1 or weight.shape[1] != features:
        raise ValueError(f"weight must be [D, P*P*C] = [D, {features}] with D >= 1, got {tuple(weight.shape)}")
    dim = weight.shape[0]
    for name, t, shape in (
        ("bias", bias, (dim,)),
        ("cls_token", cls_token, (dim,)),
        ("pos_embed", pos_embed, (1 + num_patches, dim)),
    ):
        if tuple(t.shape) != shape:
            raise ValueError(f"{name} must have shape {list(shape)}, got {list(t.shape)}")
    for name, t in tensors[1:]:
        if t.device != images.device:
            raise ValueError(f"{name} must be on images' device {images.device}, got {t.device}")
    for name, t in tensors:
        _check_finite(name, t)


def check_masking_inputs(tokens, mask_ratio, noise):
    """tokens: a float32/float64 tensor [B, 1 + N, D] (row 0 of each sample is its class token; B = 0 and N = 0
    are legal, D >= 1), finite. mask_ratio: a Python int or float in [0, 1] (not a bool). noise: a float32/float64
    tensor [B, N] (its dtype may differ from tokens'), finite, on tokens' device."""
    _check_float_tensor("tokens", tokens)
    _check_float_tensor("noise", noise)
    if isinstance(mask_ratio, bool) or not isinstance(mask_ratio, int | float):
        raise TypeError(f"mask_ratio must be a Python int or float, got {type(mask_ratio).__name__}")
    if not math.isfinite(mask_ratio) or not 0 <= mask_ratio <= 1:
        raise ValueError(f"mask_ratio is the fraction of patches removed and must be in [0, 1], got {mask_ratio}")
    if tokens.dim() != 3 or tokens.shape[1] < 1 or tokens.shape[2] < 1:
        raise ValueError(
            f"tokens must be 3-D [B, 1 + N, D], the class token first, with D >= 1; got shape {tuple(tokens.shape)}"
        )
    batch, length = tokens.shape[0], tokens.shape[1] - 1
    if tuple(noise.shape) != (batch, length):
        raise ValueError(
            f"noise must be [B, N] = [{batch}, {length}] (one draw per patch, none for the class "
            f"token), got {list(noise.shape)}"
        )
    if noise.device != tokens.device:
        raise ValueError(f"noise must be on tokens' device {tokens.device}, got {noise.device}")
    _check_finite("tokens", tokens)
    _check_finite("noise", noise)
