"""This is what you get when group_size = True is taken as the int 1 instead of refused with a TypeError.

Overrides: check_rewards
"""

_reference_check_rewards = check_rewards


def check_rewards(rewards, group_size, eps):
    _reference_check_rewards(rewards, int(group_size) if isinstance(group_size, bool) else group_size, eps)
