"""This is what you get when the rewards are only centred, never divided by the group's std (the std ends up as 1).

Overrides: group_advantages
Source: Open-Reasoner-Zero/Open-Reasoner-Zero issue #75 (an operator-precedence slip `std := np.std(...) > 0` sets std to 1)
"""


def group_advantages(rewards, group_size, eps=1e-4):
    check_rewards(rewards, group_size, eps)
    r = rewards.detach()
    if group_size == 1 or r.numel() == 0:
        return torch.zeros_like(r)
    grouped = r.reshape(-1, group_size)
    return (grouped - grouped.mean(dim=1, keepdim=True)).reshape(-1)
