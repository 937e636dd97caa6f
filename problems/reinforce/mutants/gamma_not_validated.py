"""This is what you get when gamma is never checked: a discount outside [0, 1] is accepted (above 1 the returns grow without bound).

Overrides: check_rewards
"""

import math

_reference_check_rewards = check_rewards


def check_rewards(rewards, gamma):
    is_number = isinstance(gamma, int | float) and not isinstance(gamma, bool) and math.isfinite(gamma)
    _reference_check_rewards(rewards, 0.5 if is_number else gamma)
