"""This is what you get when a hypothesis that emits eos stays in the beam and keeps growing: eos is treated like any other token, and results run on past it.

Overrides: beam_search
Source: visinf/cos-cvae issue #3 (beam search does not end the sentence at the <end> token); OpenNMT/OpenNMT-py issue #924 (beam search does not always end with EOS)
"""

import torch


def beam_search(log_probs, bos, eos, beam_size, max_len, alpha=0.0):
    alpha = check_search_args(log_probs, bos, eos, beam_size, max_len, alpha)
    table = log_probs.detach().to(torch.float64)
    alive = [((), 0.0)]
    for _ in range(max_len):
        alive = _expand(alive, table, bos)[:beam_size]
    tokens, score = _best(alive, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
