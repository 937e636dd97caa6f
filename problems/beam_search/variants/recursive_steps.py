"""One step as a function of (alive, finished) called recursively; candidates ranked by a sort key that states
the tie rule outright: (-total, parent rank, token)."""

import torch

from helpers import check_search_args


def _step(table, bos, eos, beam_size, alive, finished, steps_left):
    if steps_left == 0 or not alive:
        return finished, alive
    V = table.shape[0]
    listed = []
    for rank, (tokens, total) in enumerate(alive):
        row = table[tokens[-1] if tokens else bos]
        listed += [(-(total + float(row[v])), rank, v, tokens + (v,)) for v in range(V)]
    kept = sorted(listed)[: beam_size - len(finished)]
    new_finished = finished + [(tokens, -key) for key, _, _, tokens in kept if tokens[-1] == eos]
    new_alive = [(tokens, -key) for key, _, _, tokens in kept if tokens[-1] != eos]
    return _step(table, bos, eos, beam_size, new_alive, new_finished, steps_left - 1)


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    finished, alive = _step(log_probs.detach().double(), bos, eos, beam_size, [((), 0.0)], [], max_len)
    best, best_score = None, None
    for tokens, total in finished + alive:
        score = total / ((5 + len(tokens)) / 6) ** alpha
        if best_score is None or score > best_score:
            best, best_score = tokens, score
    padded = [*best, *([-1] * (max_len - len(best)))]
    return torch.tensor(padded, dtype=torch.int64), torch.tensor(best_score, dtype=log_probs.dtype)
