"""This is what you get when the diagonal's sum is taken as one dot product of the flattened unit rows (sum_i
<image_i, text_i> is the trace of the cosine matrix) with .view(-1): unit rows keep their input's memory layout,
so transposed embeddings raise RuntimeError instead of giving the loss; .reshape(-1) would copy where it must.

Overrides: clip_loss
"""

import torch


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    images, texts = _unit_rows(image_embeddings), _unit_rows(text_embeddings)
    scale = _scale(logit_scale)
    logits = scale * images @ texts.T  # (N, N)
    n = logits.shape[0]
    diagonal_sum = scale * torch.dot(images.view(-1), texts.view(-1))  # the trace of the logits
    lse = torch.logsumexp(logits, dim=1).sum() + torch.logsumexp(logits, dim=0).sum()
    return (lse - 2 * diagonal_sum) / (2 * n)
