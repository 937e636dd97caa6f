"""This is what you get when the length in the penalty counts the start token too.

Overrides: _best
"""


def _best(pool, alpha):
    best_tokens, best_score = None, None
    for tokens, total in pool:
        score = total / _length_penalty(len(tokens) + 1, alpha)
        if best_score is None or score > best_score:
            best_tokens, best_score = tokens, score
    return best_tokens, best_score
