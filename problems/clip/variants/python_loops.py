"""Variant: explicit loops over the pairs, a max-shifted log-sum-exp by hand, one loop per direction."""

import math

import torch

from helpers import check_embeddings, check_logit_scale

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
def _lse(values):
    top = values.max().detach()
    return top + torch.log(torch.exp(values - top).sum())


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
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
