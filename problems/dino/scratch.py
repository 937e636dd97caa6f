# Try it: a student whose softened outputs equal the teacher's sharpened ones (the lowest loss: the teacher's
# entropy), a random student, and one centre update. Runs after your code; nothing is graded.
import torch

torch.manual_seed(0)
t = torch.randn(3, 5)
teacher = [t, t.clone()]
center = torch.zeros(5)
# s / 0.1 == t / 0.04 when s = 2.5 t: the student's distribution is then the teacher's
print("matches the teacher", dino_loss([2.5 * t for _ in range(4)], teacher, center))
print("random student     ", dino_loss([torch.randn(3, 5) for _ in range(4)], teacher, center))
print("new centre", update_center(center, teacher, momentum=0.9))  # 0.9 * 0 + 0.1 * mean of the rows
