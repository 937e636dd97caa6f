"""Variant: explicit loops over the pairs, a max-shifted log-sum-exp by hand, one loop per direction."""

import math

import torch

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
FLOAT_DTYPES = (torch.float32, torch.float64)


def _check_embeddings(image_embeddings, text_embeddings):
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


def _check_logit_scale(logit_scale, embeddings):
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


def _lse(values):
    top = values.max().detach()
    return top + torch.log(torch.exp(values - top).sum())


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    _check_embeddings(image_embeddings, text_embeddings)
    _check_logit_scale(logit_scale, image_embeddings)
    n = image_embeddings.shape[0]
    images = [row / row.norm().clamp_min(1e-12) for row in image_embeddings]
    texts = [row / row.norm().clamp_min(1e-12) for row in text_embeddings]
    scale = torch.exp(torch.clamp(logit_scale, max=math.log(MAX_SCALE)))
    total = 0
    for i in range(n):
        row = torch.stack([scale * (images[i] * texts[j]).sum() for j in range(n)])  # image i against every text
        column = torch.stack([scale * (images[j] * texts[i]).sum() for j in range(n)])  # text i against every image
        total = total + (_lse(row) - row[i]) / (2 * n) + (_lse(column) - column[i]) / (2 * n)
    return total
