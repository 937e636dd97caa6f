"""This is what you get when only the images -> texts cross-entropy is used: the texts -> images direction is missing.

Source: lucidrains/DALLE-pytorch#32 (the CLIP loss called cross-entropy once, over one dimension)
Overrides: clip_loss
"""


def clip_loss(image_embeddings, text_embeddings, logit_scale):
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    logits = _scale(logit_scale) * _unit_rows(image_embeddings) @ _unit_rows(text_embeddings).T
    return _cross_entropy_diagonal(logits)
