"""This is what you get when the mask is ignored: prompt and padding tokens are summed into the completion's log-prob.

Source: 0xallam/Direct-Preference-Optimization issue #4 (padding tokens included in the log-probability)

Overrides: _masked_sum
"""


def _masked_sum(token_logps, mask):
    return token_logps.sum(dim=-1)
