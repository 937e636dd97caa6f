"""This is what you get when the returned score is the plain log-probability of the best hypothesis instead of its length-normalised score.

Overrides: beam_search
"""

import torch


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach().to(torch.float64)
    alive = [((), 0.0)]
    finished = []
    for _ in range(max_len):
        slots = beam_size - len(finished)
        candidates = _expand(alive, table, bos)
        alive = []
        for tokens, total in candidates[:slots]:
            (finished if tokens[-1] == eos else alive).append((tokens, total))
        if not alive:
            break
    pool = finished + alive
    tokens, _ = _best(pool, alpha)
    score = dict(pool)[tokens]
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
