# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import math

import torch

rewards = torch.tensor([1.0, 0, 0, 0, 1, 1, 0, 0], dtype=torch.float64)
print(group_advantages(rewards, 4))  # [1.4997, -0.4999, -0.4999, -0.4999, 0.8659, 0.8659, -0.8659, -0.8659]
print(group_advantages(torch.tensor([1.0, 1.0, 0.0, 0.0]), 2))  # equal groups: zeros, never nan

log = math.log
logp_new = torch.tensor([[log(0.5), log(0.3)], [log(0.2), log(0.9)]], dtype=torch.float64, requires_grad=True)
logp_old = torch.tensor([[log(0.5), log(0.2)], [log(0.4), log(0.1)]], dtype=torch.float64)
logp_ref = torch.tensor([[log(0.5), log(0.15)], [log(0.2), log(0.01)]], dtype=torch.float64)
advantages = torch.tensor([1.0, -1.0], dtype=torch.float64)
mask = torch.tensor([[True, True], [True, False]])
loss = grpo_loss(logp_new, logp_old, logp_ref, advantages, mask)
print(loss)  # -0.148069
loss.backward()
print(logp_new.grad)  # the clipped tokens get no surrogate gradient; the padded one gets exactly 0
