"""This is what you get when the eos candidates among the first `slots` finish but the alive list is then refilled to `slots` hypotheses with candidates ranked beyond the slots (as Hugging Face's generate keeps its beam full): a word ranked below the cut stays alive and may grow into the answer.

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
        for rank, (tokens, total) in enumerate(candidates):
            if tokens[-1] == eos:
                if rank < slots:
                    finished.append((tokens, total))
            elif len(alive) < slots:
                alive.append((tokens, total))
        if not alive:
            break
    tokens, score = _best(finished + alive, alpha)
    padded = torch.full((max_len,), -1, dtype=torch.int64, device=log_probs.device)
    padded[: len(tokens)] = torch.tensor(tokens, dtype=torch.int64)
    return padded, torch.tensor(score, dtype=log_probs.dtype, device=log_probs.device)
