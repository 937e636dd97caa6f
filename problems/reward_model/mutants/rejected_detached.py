"""This is what you get when the rejected reward is detached (computed under torch.no_grad(), say): only the
chosen response's reward is trained, and r_rejected gets no gradient.

Overrides: _logit
"""


def _logit(r_chosen, r_rejected, margin):
    z = r_chosen - r_rejected.detach()
    if margin is not None:
        z = z - margin
    return z
