"""This is what you get when temperature 0 writes the one-hot distribution into the logits themselves: the answer
is right, but the caller's logits are gone.

Overrides: _greedy
"""


def _greedy(logits):
    best = logits.argmax(dim=-1, keepdim=True)
    return logits.zero_().scatter_(-1, best, 1.0)
