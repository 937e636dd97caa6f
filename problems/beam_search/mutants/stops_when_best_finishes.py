"""This is what you get when the search stops as soon as the best-ranked candidate of a step ends with eos: the hypotheses still alive never get their remaining steps, and with a length penalty a longer one could have won.

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
        if not alive or candidates[0][0][-1] == eos:  # "the best hypothesis is done"
            break
    tokens, score = _best(finished + alive, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
