"""This is what you get when the cosines are divided by exp(logit_scale), as by a temperature: the scale multiplies them.

Overrides: clip_loss
"""


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    logits = _unit_rows(image_embeddings) @ _unit_rows(text_embeddings).T / _scale(logit_scale)
    return (_cross_entropy_diagonal(logits) + _cross_entropy_diagonal(logits.T)) / 2
