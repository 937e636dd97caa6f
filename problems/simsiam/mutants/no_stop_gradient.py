"""This is what you get when the projections are not detached: gradient flows into z1 and z2 through the loss, the collapse SimSiam's stop-gradient prevents.

Source: lightly-ai/lightly#559 (the projections of a SimSiam implementation were not detached)
Overrides: _negative_cosine
"""


def _negative_cosine(p, z):
    return -(_unit_rows(p) * _unit_rows(z)).sum(dim=1).mean()
