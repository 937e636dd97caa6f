# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import torch

logp_new = torch.tensor([0.6, 0.3, 0.3, 0.6], dtype=torch.float64).log().requires_grad_(True)
logp_old = torch.tensor([0.4, 0.6, 0.6, 0.4], dtype=torch.float64).log()
advantages = torch.tensor([2.0, 1.0, -1.0, -1.0], dtype=torch.float64)
loss = clipped_surrogate(logp_new, logp_old, advantages, clip_eps=0.2)
loss.backward()
print("clipped surrogate", loss.item())  # -0.15
print("its gradient     ", logp_new.grad)  # [0, -0.125, 0, 0.375]: zero where the clip binds

values = torch.tensor([1.0, 2.0, 0.0], dtype=torch.float64)
old_values = torch.tensor([0.5, 2.5, 0.5], dtype=torch.float64)
returns = torch.tensor([2.0, 0.0, 1.0], dtype=torch.float64)
print("value loss        ", value_loss(values, old_values, returns).item())  # 1.0
print("clipped at 0.2    ", value_loss(values, old_values, returns, clip_eps=0.2).item())  # 1.33

logits = torch.zeros(2, 3, dtype=torch.float64)  # uniform over 3 actions: entropy ln 3
zeros = torch.zeros(2, dtype=torch.float64)
logp = torch.full((2,), -torch.log(torch.tensor(3.0)).item(), dtype=torch.float64)
print("entropy bonus only", ppo_loss(logits, torch.tensor([0, 2]), logp, zeros, zeros, zeros, zeros,
                                     vf_coef=0.0, ent_coef=1.0).item())  # -1.0986 = -ln 3
