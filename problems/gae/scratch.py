# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

rewards = torch.tensor([1.0, 0.0, 2.0, 1.0], dtype=torch.float64)
values = torch.tensor([0.5, 1.0, 1.0, 2.0], dtype=torch.float64)
dones = torch.tensor([False, True, False, False])  # the episode ends at step 1
last_value = torch.tensor(4.0, dtype=torch.float64)  # V of the state after step 3

advantages, returns = gae(rewards, values, dones, last_value, gamma=0.5, lam=0.5)
print("advantages", advantages)  # [0.75, -1, 2.25, 1]
print("returns   ", returns)  # [1.25, 0, 3.25, 3] = advantages + values
print("lam = 0   ", gae(rewards, values, dones, last_value, gamma=0.5, lam=0.0)[0])  # the TD errors [1, -1, 2, 1]
print("lam = 1   ", gae(rewards, values, dones, last_value, gamma=0.5, lam=1.0)[1])  # [1, 0, 3.5, 3]
print("G         ", discounted_returns(rewards, dones, last_value, gamma=0.5))  # the same [1, 0, 3.5, 3]

# Two environments side by side: column 1 never ends and bootstraps from its own last value, 2.
batch = gae(torch.stack([rewards, torch.tensor([0.0, 1.0, 0.0, 1.0], dtype=torch.float64)], dim=1),
            torch.stack([values, torch.ones(4, dtype=torch.float64)], dim=1),
            torch.stack([dones, torch.zeros(4, dtype=torch.bool)], dim=1),
            torch.tensor([4.0, 2.0], dtype=torch.float64), gamma=0.5, lam=0.5)
print("column 0  ", batch[0][:, 0])  # the hand example again
print("column 1  ", batch[0][:, 1])  # [-0.390625, 0.4375, -0.25, 1]

critic = values.clone().requires_grad_()  # a critic's output usually carries a graph
print("detached  ", gae(rewards, critic, dones, last_value)[0].requires_grad)  # False
