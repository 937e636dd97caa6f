"""Courses: rosters, assignments with due times and late policies, extensions, the gradebook, learner accounts
(docs/courses.md)."""
