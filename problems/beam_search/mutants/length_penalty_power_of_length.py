"""This is what you get when the length penalty is |y|^alpha instead of ((5 + |y|) / 6)^alpha: long hypotheses are favoured much more strongly than Wu et al.'s penalty does.

Overrides: _length_penalty
Source: huggingface/transformers issue #16930 (generate's length_penalty divides by len ** alpha, not the penalty of Wu et al.)
"""


def _length_penalty(length, alpha):
    return length ** alpha
