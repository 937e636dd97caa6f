# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import math

import torch

logits = torch.tensor([[[0.0, 0.0, 0.0], [math.log(2.0), 0.0, 0.0], [0.0, math.log(3.0), 0.0]],
                       [[5.0, -1.0, 2.0], [0.0, 0.0, 0.0], [-3.0, 4.0, 1.0]]], dtype=torch.float64)
labels = torch.tensor([[2, 0, 1], [1, 2, 0]])  # already aligned: logits[:, t] scores labels[:, t]
mask = torch.tensor([[False, True, True], [False, True, False]])  # prompt at t = 0, padding at t = 2 in row 1
print("sequence log-probs", sequence_logprob(logits, labels, mask))  # [ln 0.3, ln 1/3] = [-1.2040, -1.0986]

policy_chosen = torch.tensor([-2.0, -4.0], requires_grad=True)
policy_rejected = torch.tensor([-3.0, -1.0], requires_grad=True)
ref_chosen = torch.tensor([-2.5, -3.0])
ref_rejected = torch.tensor([-2.5, -2.0])
loss, chosen_rewards, rejected_rewards = dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, beta=0.5)
print("loss", loss)  # 0.8937
print("rewards", chosen_rewards, rejected_rewards)  # [0.25, -0.5] and [-0.25, 0.5], no grad_fn
loss.backward()
print("d loss / d chosen", policy_chosen.grad)  # -(beta / 2) sigmoid(-m) = [-0.0944, -0.1828]

# a pair ranked the wrong way by a huge margin: the loss is the margin itself, not inf
print(dpo_loss(torch.tensor([-500.0]), torch.tensor([0.0]), torch.tensor([0.0]), torch.tensor([0.0]), beta=1.0)[0])
