"""This is what you get when the teacher and student probabilities are broadcast against each other over the batch and summed over the wrong axis, instead of summed over the K outputs of each image.

Overrides: _cross_entropy
Source: kristi700/ViT-SSL, vit_core/ssl/dino/loss.py (teacher_probs.unsqueeze(1) * student_probs.unsqueeze(0), then .sum(dim=1).mean())
"""


def _cross_entropy(p, log_q):
    return -(p.unsqueeze(1) * log_q.unsqueeze(0)).sum(dim=1).mean()
