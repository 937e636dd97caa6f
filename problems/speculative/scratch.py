# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

q = torch.tensor([[0.125, 0.5, 0.25, 0.125]], dtype=torch.float64)  # the draft's row at the drafted position
p = torch.tensor([[0.375, 0.125, 0.25, 0.25],  # the target's row there
                  [0.25, 0.25, 0.25, 0.25]], dtype=torch.float64)  # and one more: the bonus row
draft = torch.tensor([1])  # the draft proposed token 1: p/q = 0.25 there

print("residual     ", residual_distribution(p[:1], q))  # [2/3, 0, 0, 1/3]
print("accepted     ", speculative_step(p, q, draft, torch.tensor([0.2]), 0.6))  # (1, 2): the bonus from p[1]
print("rejected     ", speculative_step(p, q, draft, torch.tensor([0.3]), 0.6))  # (0, 0)
print("rejected     ", speculative_step(p, q, draft, torch.tensor([0.3]), 0.7))  # (0, 3)

# The first emitted token over many random steps: its frequencies approach p[0] = [0.375, 0.125, 0.25, 0.25].
generator = torch.Generator().manual_seed(0)
counts = torch.zeros(4)
for _ in range(4000):
    proposal = torch.multinomial(q[0], 1, generator=generator)  # the draft samples its token from q
    u = torch.rand(2, generator=generator, dtype=torch.float64)
    n, token = speculative_step(p, q, proposal, u[:1], float(u[1]))
    counts[int(proposal) if n == 1 else token] += 1
print("first token  ", counts / 4000)
