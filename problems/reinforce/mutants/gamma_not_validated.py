"""This is what you get when gamma is never checked: a discount above 1 (or below 0) is accepted and the returns grow without bound.

Overrides: check_rewards
"""

_reference_check_rewards = check_rewards


def check_rewards(rewards, gamma):
    _reference_check_rewards(rewards, 0.5 if isinstance(gamma, int | float) and not isinstance(gamma, bool) else gamma)
