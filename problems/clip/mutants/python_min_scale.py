"""This is what you get when the cap is Python's min(logit_scale.exp(), 100): above the clip min returns the
number 100, not a tensor, so the value is right but logit_scale leaves the graph and gets no gradient at all.

Overrides: _scale
"""


def _scale(logit_scale):
    return min(logit_scale.exp(), MAX_SCALE)
