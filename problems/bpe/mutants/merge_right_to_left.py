"""This is what you get when a pair is replaced from right to left: 'a a a' becomes 'a aa' instead of 'aa a'.

Overrides: _merge
"""


def _merge(tokens, pair, token):
    merged, i = [], len(tokens) - 1
    while i >= 0:
        if i > 0 and (tokens[i - 1], tokens[i]) == pair:
            merged.append(token)
            i -= 2
        else:
            merged.append(tokens[i])
            i -= 1
    return merged[::-1]
