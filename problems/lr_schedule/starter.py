"""Linear warmup + cosine decay. Implement lr_at below; the two helpers of helpers.py (read-only under the editor)
check the contract for you."""

import math

from helpers import check_rates, check_step_counts


def lr_at(step, base_lr, warmup_steps, total_steps, min_lr=0.0):
    """The learning rate for update number `step` (0-based), as a Python float.

    step < warmup_steps:                 base_lr * (step + 1) / warmup_steps
    warmup_steps <= step <= total_steps: cosine from base_lr (at warmup_steps) to min_lr (at total_steps)
    step > total_steps:                  min_lr
    """
    check_step_counts(step, warmup_steps, total_steps)
    check_rates(base_lr, min_lr)
    # 1. warmup: count the steps from one, so step 0 already has a non-zero rate
    # 2. after total_steps: the floor, without evaluating the cosine past its minimum
    # 3. in between: progress = how far through the decay span (total_steps - warmup_steps) the step is,
    #    then half a cosine from base_lr down to min_lr
    raise NotImplementedError("lr_at: follow steps 1-3 above")
