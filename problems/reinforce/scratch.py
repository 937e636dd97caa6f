# Try it: the statement's hand examples. Runs after your code; nothing is graded.
import torch

rewards = torch.tensor([1.0, 0.0, 2.0], dtype=torch.float64)
print("reward-to-go   ", discounted_returns(rewards, 0.5))  # [1.5, 1.0, 2.0]
print("gamma = 0      ", discounted_returns(rewards, 0.0))  # the rewards themselves
print("gamma = 1      ", discounted_returns(rewards, 1.0))  # [3.0, 2.0, 2.0]

log_probs = torch.tensor([-1.0, -2.0, -0.5], dtype=torch.float64, requires_grad=True)
returns = torch.tensor([2.0, 1.0, 3.0], dtype=torch.float64)
baseline = torch.tensor(1.0, dtype=torch.float64).expand(3)
loss = reinforce_loss(log_probs, returns, baseline)
loss.backward()
print("loss           ", loss)  # 2/3
print("d loss / d logp", log_probs.grad)  # [-1/3, 0, -2/3]: minus the advantages over N

b = update_baseline(torch.tensor(1.0, dtype=torch.float64), torch.tensor([2.0, 4.0], dtype=torch.float64), 0.9)
print("new baseline   ", b)  # 0.9 * 1 + 0.1 * 3 = 1.2

# A two-armed bandit: one step of gradient descent on your loss should favour the arm that pays more.
theta = torch.zeros(2, dtype=torch.float64, requires_grad=True)
generator = torch.Generator().manual_seed(0)
actions = torch.randint(0, 2, (64,), generator=generator)
pay = actions.double() + torch.randn(64, generator=generator, dtype=torch.float64)  # arm 1 pays 1 more
logp = torch.log_softmax(theta, dim=-1)[actions]
reinforce_loss(logp, pay, pay.mean().expand(64)).backward()
with torch.no_grad():
    print("pi(arm 1) after one step", torch.softmax(theta - 1.0 * theta.grad, dim=-1)[1])  # above 0.5
