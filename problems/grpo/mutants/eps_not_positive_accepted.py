"""This is what you get when an eps of 0 or below is accepted instead of refused with a ValueError: eps = 0 turns a group of equal rewards into 0 / 0.

Overrides: check_rewards
"""

_reference_check_rewards = check_rewards


def check_rewards(rewards, group_size, eps):
    number = isinstance(eps, int | float) and not isinstance(eps, bool)
    _reference_check_rewards(rewards, group_size, 1e-4 if number and eps <= 0 else eps)
