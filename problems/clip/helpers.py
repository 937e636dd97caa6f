"""CLIP: the validation helpers, supplied and read-only.

`from helpers import check_embeddings, check_logit_scale` in your solution (the starter does)."""

import torch

FLOAT_DTYPES = (torch.float32, torch.float64)


def check_embeddings(image_embeddings, text_embeddings):
    """Raise TypeError / ValueError unless both are matching finite float32/float64 [N, D] tensors, N, D >= 1."""
    for name, t in (("image_embeddings", image_embeddings), ("text_embeddings", text_embeddings)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dtype not in FLOAT_DTYPES:
            raise TypeError(f"{name} must be float32 or float64, got {t.dtype}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D [N, D], got shape {tuple(t.shape)}")
    if image_embeddings.dtype != text_embeddings.dtype:
        raise TypeError(f"image_embeddings and text_embeddings must share a dtype, got {image_embeddings.dtype} "
                        f"and {text_embeddings.dtype}")
    if image_embeddings.device != text_embeddings.device:
        raise ValueError(f"image_embeddings and text_embeddings must be on one device, got "
                         f"{image_embeddings.device} and {text_embeddings.device}")
    if image_embeddings.shape != text_embeddings.shape:
        raise ValueError(f"image_embeddings and text_embeddings must have the same shape [N, D], got "
                         f"{tuple(image_embeddings.shape)} and {tuple(text_embeddings.shape)}")
    if image_embeddings.shape[0] < 1 or image_embeddings.shape[1] < 1:
        raise ValueError(f"need N >= 1 pairs and D >= 1 features, got shape {tuple(image_embeddings.shape)}")
    if not (torch.isfinite(image_embeddings).all() and torch.isfinite(text_embeddings).all()):
        raise ValueError("image_embeddings and text_embeddings must contain only finite values")


def check_logit_scale(logit_scale, embeddings):
    """Raise TypeError / ValueError unless logit_scale is a finite 0-d tensor of the embeddings' dtype and device."""
    if not isinstance(logit_scale, torch.Tensor):
        raise TypeError(f"logit_scale must be a 0-d torch.Tensor (a learned parameter), got "
                        f"{type(logit_scale).__name__}")
    if logit_scale.dtype != embeddings.dtype:
        raise TypeError(f"logit_scale must have the embeddings' dtype {embeddings.dtype}, got {logit_scale.dtype}")
    if logit_scale.dim() != 0:
        raise ValueError(f"logit_scale must be a 0-d tensor, got shape {tuple(logit_scale.shape)}")
    if logit_scale.device != embeddings.device:
        raise ValueError(f"logit_scale must be on the embeddings' device {embeddings.device}, got "
                         f"{logit_scale.device}")
    if not torch.isfinite(logit_scale):
        raise ValueError(f"logit_scale must be finite, got {float(logit_scale)}")
