"""This is what you get when tau = 1 returns target_params itself (detached): the result shares the input's storage.

Overrides: target_update
"""

_reference_update = target_update


def target_update(online_params, target_params, tau):
    check_tau(tau)
    check_pair("online_params", online_params, "target_params", target_params)
    if tau == 1:
        return target_params.detach()
    return _reference_update(online_params, target_params, tau)
