# Try it: the statement's hand example. Runs after your code; nothing is graded.
import torch

logits = torch.tensor([0.15, 0.5, 0.05, 0.2, 0.1], dtype=torch.float64).log()
print("T = 1      ", sampling_probs(logits))  # the same five numbers
print("top_k = 2  ", sampling_probs(logits, top_k=2))  # [0, 5/7, 0, 2/7, 0]
print("top_p = .75", sampling_probs(logits, top_p=0.75))  # [0.15, 0.5, 0, 0.2, 0] / 0.85
print("T = 0      ", sampling_probs(logits, temperature=0))  # [0, 1, 0, 0, 0]

rows = logits.expand(3, 5)  # three rows, one draw each
print("draws      ", sample(rows, torch.tensor([0.1, 0.66, 0.95], dtype=torch.float64)))  # tokens 0, 2, 4
print("top_k, u=0 ", sample(logits, torch.tensor(0.0), top_k=2))  # token 1, never the removed token 0

# Drawing for real: a seeded generator supplies the uniforms.
generator = torch.Generator().manual_seed(0)
draws = sample(logits.expand(10_000, 5), torch.rand(10_000, generator=generator, dtype=torch.float64), top_p=0.75)
print("frequencies", torch.bincount(draws, minlength=5) / 10_000)  # close to [0.176, 0.588, 0, 0.235, 0]
