"""This is what you get when each hypothesis proposes only its own best next token: the beam becomes several greedy searches side by side and a parent's second-best continuation is never considered.

Overrides: _expand
"""


def _expand(alive, table, bos):
    candidates = []
    for tokens, total in alive:
        last = tokens[-1] if tokens else bos
        row = table[last].tolist()
        v = max(range(len(row)), key=lambda token: (row[token], -token))
        candidates.append((tokens + (v,), total + row[v]))
    if len(alive) == 1 and not alive[0][0]:  # the first step: the start hypothesis proposes every token
        row = table[bos].tolist()
        candidates = [((v,), row[v]) for v in range(len(row))]
    return sorted(candidates, key=lambda candidate: -candidate[1])
