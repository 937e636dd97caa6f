# Try it: one AdamW step on a small parameter, printed. Runs after your code; nothing is graded.
import torch

param = torch.tensor([1.0, -2.0, 3.0])
grad = torch.tensor([0.1, 0.2, -0.3])
exp_avg = torch.zeros(3)
exp_avg_sq = torch.zeros(3)

new_param, new_avg, new_avg_sq = adamw_step(param, grad, exp_avg, exp_avg_sq, step=1, lr=0.1)
print("param     ", new_param)  # the first step moves each entry by about lr
print("exp_avg   ", new_avg)
print("exp_avg_sq", new_avg_sq)
