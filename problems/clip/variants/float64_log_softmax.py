"""Variant: float64 inside, log_softmax over the rows and over the columns of one matrix, cast back."""

import math

import torch

from helpers import check_embeddings, check_logit_scale

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    images = image_embeddings.double()
    texts = text_embeddings.double()
    images = images / torch.linalg.vector_norm(images, dim=1, keepdim=True).clamp_min(1e-12)
    texts = texts / torch.linalg.vector_norm(texts, dim=1, keepdim=True).clamp_min(1e-12)
    scale = torch.where(logit_scale.double() < math.log(MAX_SCALE), logit_scale.double(),
                        torch.tensor(math.log(MAX_SCALE), dtype=torch.float64)).exp()
    logits = scale * torch.einsum("id,jd->ij", images, texts)
    per_image = -torch.log_softmax(logits, dim=1).diagonal()  # each image picks its text in its row
    per_text = -torch.log_softmax(logits, dim=0).diagonal()  # each text picks its image in its column
    return ((per_image.mean() + per_text.mean()) / 2).to(image_embeddings.dtype)
