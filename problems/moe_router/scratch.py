# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

probs = torch.tensor([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.7, 0.2, 0.1], [0.5, 0.25, 0.25]], dtype=torch.float64)
logits = probs.log()  # 4 tokens, 3 experts
gates = top_k_gating(logits, 2)
print("gates\n", gates)  # [0.625, 0.375, 0], [0, 2/3, 1/3], [7/9, 2/9, 0], [2/3, 1/3, 0]

experts = torch.sort(gates, dim=1, descending=True, stable=True).indices[:, :2]  # each token's 2 experts, best first
print("experts\n", experts)  # [0, 1], [1, 2], [0, 1], [0, 1]
print("capacity 1\n", capacity_mask(experts, 3, 1))  # [[T, F], [T, T], [F, F], [F, F]]
print("capacity 2\n", capacity_mask(experts, 3, 2))  # [[T, T], [T, T], [T, F], [F, F]]

print("aux loss k=2", load_balancing_loss(logits, 2))  # 1.0921875
print("aux loss k=1", load_balancing_loss(logits, 1))  # 1.265625
print("even load   ", load_balancing_loss(torch.eye(3).repeat(2, 1) * 2, 1))  # 1: every expert gets 2 of 6
