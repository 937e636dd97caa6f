"""The student's logits are detached in the soft term as well as the teacher's: the loss has the right value,
but only the cross-entropy trains the student, so the gradient lacks alpha * T * (p_student - p_teacher) / N.

Overrides: distillation_loss
"""


def distillation_loss(student_logits, teacher_logits, target, temperature, alpha):
    check_logits(student_logits, teacher_logits)
    check_target(target, student_logits)
    check_settings(temperature, alpha)
    t = temperature
    log_p_student = F.log_softmax(student_logits.detach() / t, dim=1)
    log_p_teacher = F.log_softmax(teacher_logits.detach() / t, dim=1)
    kl = (log_p_teacher.exp() * (log_p_teacher - log_p_student)).sum(dim=1).mean()
    hard = F.cross_entropy(student_logits, target)
    return alpha * t * t * kl + (1 - alpha) * hard
