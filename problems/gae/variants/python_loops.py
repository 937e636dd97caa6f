"""Plain Python loops over environments and steps, accumulating in Python floats (float64), cast back at the end."""

import torch

from helpers import check_factor, check_returns_rollout, check_rollout


def _as_columns(t):
    t = t.detach().double()
    return [t.tolist()] if t.dim() == 1 else [t[:, j].tolist() for j in range(t.shape[1])]


def _to_tensor(columns, like):
    if like.dim() == 1:
        return torch.tensor(columns[0], dtype=like.dtype).reshape(like.shape)
    out = torch.zeros(like.shape, dtype=torch.float64)
    for j, column in enumerate(columns):
        if column:
            out[:, j] = torch.tensor(column, dtype=torch.float64)
    return out.to(like.dtype)


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    check_rollout(rewards, values, dones, last_value)
    gamma, lam = check_factor("gamma", gamma), check_factor("lam", lam)
    lasts = last_value.detach().double().reshape(-1).tolist()
    done_columns = [d.tolist() for d in (dones.T if dones.dim() == 2 else dones[None])]
    adv_columns, ret_columns = [], []
    for r, v, d, last in zip(_as_columns(rewards), _as_columns(values), done_columns, lasts):
        steps = len(r)
        a = [0.0] * steps
        following_adv = 0.0
        for t in range(steps - 1, -1, -1):
            if d[t]:
                a[t] = r[t] - v[t]
            else:
                following_value = v[t + 1] if t + 1 < steps else last
                a[t] = r[t] + gamma * following_value - v[t] + gamma * lam * following_adv
            following_adv = a[t]
        adv_columns.append(a)
        ret_columns.append([x + y for x, y in zip(a, v)])
    return _to_tensor(adv_columns, rewards), _to_tensor(ret_columns, rewards)


def discounted_returns(rewards, dones, last_value, gamma=0.99):
    check_returns_rollout(rewards, dones, last_value)
    gamma = check_factor("gamma", gamma)
    lasts = last_value.detach().double().reshape(-1).tolist()
    done_columns = [d.tolist() for d in (dones.T if dones.dim() == 2 else dones[None])]
    out = []
    for r, d, last in zip(_as_columns(rewards), done_columns, lasts):
        g, running = [0.0] * len(r), last
        for t in range(len(r) - 1, -1, -1):
            running = r[t] + (0.0 if d[t] else gamma * running)
            g[t] = running
        out.append(g)
    return _to_tensor(out, rewards)
