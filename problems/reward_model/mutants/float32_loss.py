"""This is what you get when the rewards are cast with .float() before the loss: float64 rewards give a float32
loss, rounded to float32 precision.

Overrides: _logit
"""


def _logit(r_chosen, r_rejected, margin):
    z = r_chosen.float() - r_rejected.float()
    if margin is not None:
        z = z - margin.float()
    return z
