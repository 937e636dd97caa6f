"""The loss is computed in float32 whatever the logits' dtype.

Overrides: distillation_loss
"""


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    s, te = student_logits.float(), teacher_logits.detach().float()
    log_p_student = F.log_softmax(s / t, dim=1)
    log_p_teacher = F.log_softmax(te / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=1).mean()
    return alpha * t * t * kl + (1 - alpha) * F.cross_entropy(s, target)
