"""This is what you get when you walk down the ranking until `slots` hypotheses are alive and finish every eos candidate you pass on the way: eos candidates ranked beyond the slots finish too (and take slots from later steps), and words ranked beyond them stay alive.

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
        alive_before, alive = alive, []
        for tokens, total in _expand(alive_before, table, bos):
            if len(alive) >= slots:
                break
            (finished if tokens[-1] == eos else alive).append((tokens, total))
        if not alive:
            break
    tokens, score = _best(finished + alive, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
