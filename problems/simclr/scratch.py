# Try it: the loss of two views that agree, and of two that do not. Runs after your code; nothing is graded.
import torch

torch.manual_seed(0)
z1 = torch.randn(4, 8)
print("same views  ", nt_xent_loss(z1, z1.clone(), temperature=0.5))
print("random views", nt_xent_loss(z1, torch.randn(4, 8), temperature=0.5))
