"""This is what you get when logit_scale is clipped in place (as a training loop does to the parameter): the caller's tensor is overwritten.

Overrides: clip_loss
"""

import math

import torch

_reference_loss = clip_loss


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    with torch.no_grad():
        logit_scale.clamp_(max=math.log(MAX_SCALE))
    return _reference_loss(image_embeddings, text_embeddings, logit_scale)
