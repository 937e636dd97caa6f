"""floors the norm at 1e-8 instead of 1e-12.

Overrides: NORM_FLOOR
"""


NORM_FLOOR = 1e-8  # every row of every function is divided by max(||row||, NORM_FLOOR)
