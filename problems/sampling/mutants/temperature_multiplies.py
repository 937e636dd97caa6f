"""This is what you get when the logits are multiplied by the temperature instead of divided by it: T = 2 sharpens the row instead of flattening it.

Overrides: _scaled
"""


def _scaled(logits, temperature):
    return (logits - logits.amax(dim=-1, keepdim=True)) * temperature
