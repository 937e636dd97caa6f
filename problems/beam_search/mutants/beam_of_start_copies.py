"""This is what you get when the beam starts as beam_size copies of the empty hypothesis: the copies propose the same candidates, which then fill several slots with one and the same sequence.

Overrides: beam_search
Source: facebookresearch/ParlAI issue #2007 and pull request #2047 (every beam expanded from the same start token: beam search returns the same hypothesis beam_size times)
"""

import torch


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach().to(torch.float64)
    alive = [((), 0.0)] * beam_size
    finished = []
    for _ in range(max_len):
        slots = beam_size - len(finished)
        candidates = _expand(alive, table, bos)
        alive = []
        for tokens, total in candidates[:slots]:
            (finished if tokens[-1] == eos else alive).append((tokens, total))
        if not alive:
            break
    tokens, score = _best(finished + alive, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
