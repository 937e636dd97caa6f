# Try it: the schedule at a few steps: warm-up, peak, decay, end. Runs after your code; nothing is graded.
for step in (0, 5, 10, 50, 90, 100):
    print(step, lr_at(step, base_lr=1.0, warmup_steps=10, total_steps=100, min_lr=0.1))
