"""This is what you get when the table is read as log_probs[next, previous] instead of log_probs[previous, next].

Overrides: _expand
"""


def _expand(alive, table, bos):
    V = table.shape[0]
    candidates = []
    for tokens, total in alive:
        last = tokens[-1] if tokens else bos
        column = table[:, last].tolist()
        candidates.extend((tokens + (v,), total + column[v]) for v in range(V))
    return sorted(candidates, key=lambda candidate: -candidate[1])
