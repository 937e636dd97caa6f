"""The temperature is made a tensor with torch.tensor(temperature), which is float32: float64 logits divided by
it stay float64, but T itself is rounded to float32 (0.3 becomes 0.30000001192...), an error of about 1e-8 in
a float64 loss.

Overrides: distillation_loss
"""

import torch


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = torch.tensor(temperature)
    log_p_student = F.log_softmax(student_logits / t, dim=1)
    log_p_teacher = F.log_softmax(teacher_logits.detach() / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=1).mean()
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
