"""CLIP (Radford et al., 2021): the symmetric contrastive loss between images and their captions. Implement
clip_loss below; the helpers of helpers.py (read-only under the editor) check the contract for you."""

import torch

from helpers import check_embeddings, check_logit_scale

NORM_FLOOR = 1e-12  # rows are divided by max(||row||, NORM_FLOOR): a zero row stays zero instead of 0 / 0
MAX_SCALE = 100.0  # the paper clips the learned temperature so that the logits are scaled by at most 100
def clip_loss(image_embeddings, text_embeddings, logit_scale):
    """CLIP's loss for a batch of N (image, text) pairs; row i of each input belongs to pair i.

    image_embeddings, text_embeddings: [N, D]. logit_scale: a 0-d tensor, the log of the logits' scale.
    Returns a 0-d tensor: the average of the images -> texts and texts -> images cross-entropies.
    """
    check_embeddings(image_embeddings, text_embeddings)
    check_logit_scale(logit_scale, image_embeddings)
    # 1. divide every row of both inputs by max(its L2 norm, 1e-12)
    # 2. scale = exp(logit_scale), but never above 100; logits = scale * (images @ texts^T), an [N, N] matrix
    # 3. cross-entropy of each row with the right answer on the diagonal (images -> texts), and the same for
    #    each column (texts -> images), each a mean over N, with a stable log-sum-exp
    # 4. average the two directions
    raise NotImplementedError("clip_loss: follow steps 1-4 above")
