"""This is what you get when the carried advantage is masked twice, once with the flag of the step it comes from and once with the flag of the step it goes to: the recursion is cut one step before every episode end as well.

Source: alessiodm/drl-zh issue #13 (`last_gae_lambda = advantages[t] * next_non_terminal` on top of the masked recursion)
Overrides: _discounted_sum
"""

import torch


def _discounted_sum(x, decay, tail):
    out = torch.empty_like(x)
    running = tail
    for t in reversed(range(x.shape[0])):
        out[t] = x[t] + decay[t] * running
        running = out[t] * (decay[t] != 0).to(x.dtype)
    return out
