"""Reference CLIP loss (Radford et al., 2021). The checks compare submissions with it."""

import math

import torch

from helpers import check_embeddings, check_logit_scale

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
def _unit_rows(x):
    """Each row divided by max(its L2 norm, NORM_FLOOR)."""
    return x / x.norm(dim=1, keepdim=True).clamp_min(NORM_FLOOR)  # (N, D) / (N, 1)


def _scale(logit_scale):
    """min(exp(logit_scale), 100), written as exp(min(logit_scale, ln 100)): the same value, and above the clip
    a gradient of exactly 0 rather than 0 * exp(logit_scale), which is nan once exp overflows."""
    return torch.exp(logit_scale.clamp(max=math.log(MAX_SCALE)))


def _cross_entropy_diagonal(logits):
    """The mean over the rows of -log softmax(row)[i]: row i's right answer is column i."""
    rows = torch.arange(logits.shape[0], device=logits.device)
    return (torch.logsumexp(logits, dim=1) - logits[rows, rows]).mean()  # a stable log-sum-exp


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    images = _unit_rows(image_embeddings)
    texts = _unit_rows(text_embeddings)
    logits = _scale(logit_scale) * images @ texts.T  # (N, N): row i is image i against every text
    # images -> texts over the rows, texts -> images over the columns; both directions count equally
    return (_cross_entropy_diagonal(logits) + _cross_entropy_diagonal(logits.T)) / 2
