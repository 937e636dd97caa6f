"""This is what you get when logit_scale multiplies the logits as it is, without exp: it is the log of the scale.

Source: BAAI-DCAI/M3D#64 (a CLIP forward without logit_scale.exp())
Overrides: _scale
"""


def _scale(logit_scale):
    return logit_scale.clamp(max=MAX_SCALE)
