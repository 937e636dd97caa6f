"""This is what you get when the labels are counted from the embedding width (shape[1]) instead of the batch
(shape[0]): the diagonal is found only when a batch has as many pairs as features, and otherwise the indexing
fails or picks the wrong entries.

Overrides: clip_loss
"""

import torch


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    logits = _scale(logit_scale) * _unit_rows(image_embeddings) @ _unit_rows(text_embeddings).T
    labels = torch.arange(image_embeddings.shape[1], device=logits.device)  # should be shape[0], N
    per_image = torch.logsumexp(logits, dim=1) - logits[labels, labels]
    per_text = torch.logsumexp(logits, dim=0) - logits[labels, labels]
    return (per_image.mean() + per_text.mean()) / 2
