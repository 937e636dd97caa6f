"""This is what you get when the first step reads row 0 of the table instead of the row of bos.

Overrides: _expand
"""


def _expand(alive, table, bos):
    V = table.shape[0]
    candidates = []
    for tokens, total in alive:
        last = tokens[-1] if tokens else 0
        row = table[last].tolist()
        candidates.extend((tokens + (v,), total + row[v]) for v in range(V))
    return sorted(candidates, key=lambda candidate: -candidate[1])
