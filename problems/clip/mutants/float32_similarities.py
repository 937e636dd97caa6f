"""This is what you get when the cosine matrix is computed in float32 whatever the inputs' dtype (a habit from
mixed-precision training) and the loss cast back: float64 inputs get a loss accurate to only 7 digits.

Overrides: clip_loss
"""

import torch


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    images = _unit_rows(image_embeddings).float()
    texts = _unit_rows(text_embeddings).float()
    logits = (_scale(logit_scale).float() * images @ texts.T).to(image_embeddings.dtype)
    return (_cross_entropy_diagonal(logits) + _cross_entropy_diagonal(logits.T)) / 2
