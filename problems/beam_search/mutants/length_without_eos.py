"""This is what you get when the length in the penalty leaves out the end token.

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
    best_tokens, best_score = None, None
    for tokens, total in finished + alive:
        generated = len(tokens) - 1 if tokens[-1] == eos else len(tokens)
        score = total / ((5 + generated) / 6) ** alpha
        if best_score is None or score > best_score:
            best_tokens, best_score = tokens, score
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(best_tokens)] = torch.tensor(best_tokens, dtype=torch.int64)
    return padded, torch.tensor(best_score, dtype=log_probs.dtype, device=log_probs.device)
