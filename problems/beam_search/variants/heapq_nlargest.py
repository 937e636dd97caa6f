"""Plain Python with heapq.nlargest (equivalent to a stable sort by total, highest first), lists of tokens and
scores in Python floats."""

import heapq

import torch

from helpers import check_search_args


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    rows = log_probs.detach().double().tolist()
    alive = [([], 0.0)]
    done = []
    for _ in range(max_len):
        listed = [(tokens + [v], total + rows[tokens[-1] if tokens else bos][v])
                  for tokens, total in alive for v in range(len(rows))]
        kept = heapq.nlargest(beam_size - len(done), listed, key=lambda c: c[1])
        done += [c for c in kept if c[0][-1] == eos]
        alive = [c for c in kept if c[0][-1] != eos]
        if not alive:
            break

    def normalised(hypothesis):
        tokens, total = hypothesis
        return total / ((5 + len(tokens)) / 6) ** alpha

    pool = done + alive
    scores = [normalised(h) for h in pool]
    best = scores.index(max(scores))
    tokens = pool[best][0] + [-1] * (max_len - len(pool[best][0]))
    return torch.tensor(tokens, dtype=torch.int64), torch.tensor(scores[best], dtype=log_probs.dtype)
