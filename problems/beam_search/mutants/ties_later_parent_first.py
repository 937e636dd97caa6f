"""This is what you get when candidates of equal total are ordered with the worse-ranked parent's candidate first.

Overrides: _expand
"""


def _expand(alive, table, bos):
    V = table.shape[0]
    candidates = []
    for tokens, total in reversed(alive):
        last = tokens[-1] if tokens else bos
        row = table[last].tolist()
        candidates.extend((tokens + (v,), total + row[v]) for v in range(V))
    return sorted(candidates, key=lambda candidate: -candidate[1])
