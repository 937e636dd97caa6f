"""The per-example KL is summed with keepdim=True, so the mean over examples is a tensor of shape [1], not the
0-d loss the contract promises (its one value is right).

Overrides: distillation_loss
"""


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    log_p_student = F.log_softmax(student_logits / t, dim=1)
    log_p_teacher = F.log_softmax(teacher_logits.detach() / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=1, keepdim=True).mean(dim=0)  # (1,)
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
