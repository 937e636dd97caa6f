"""This is what you get when the difference is taken the wrong way round, r_rejected - r_chosen: the loss then
rewards the model for preferring the rejected response.

Overrides: _logit
"""


def _logit(r_chosen, r_rejected, margin):
    z = r_rejected - r_chosen
    if margin is not None:
        z = z - margin
    return z
