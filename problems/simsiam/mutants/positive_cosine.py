"""This is what you get when D is the cosine itself rather than its negative: minimising it pushes the two views apart.

Source: gned0/avalanche avalanche/training/self_supervised_losses.py (SimSiamLoss returns 0.5 * (cos + cos) of nn.CosineSimilarity)
Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    return (_unit_rows(p) * _unit_rows(z.detach())).sum(dim=1).mean()
