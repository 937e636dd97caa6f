"""Variant: F.normalize and F.cross_entropy with the diagonal as labels, the scale as exp(min(s, ln 100))."""

import math

import torch
import torch.nn.functional as F

from helpers import check_embeddings, check_logit_scale

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    images = F.normalize(image_embeddings, dim=1, eps=1e-12)
    texts = F.normalize(text_embeddings, dim=1, eps=1e-12)
    scale = torch.minimum(logit_scale, torch.tensor(math.log(MAX_SCALE), dtype=logit_scale.dtype)).exp()
    logits_per_image = scale * images @ texts.T
    labels = torch.arange(images.shape[0], device=images.device)
    return (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_image.T, labels)) / 2
