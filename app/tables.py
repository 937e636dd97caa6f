"""Every table, registered on one Base.metadata: the learners' (app.models), the instructor side's
(app.instructor.models), the courses' (rosters, assignments, the gradebook's overrides, learner accounts:
app.courses.models) and LTI's (app.lti.models). Import Base from here wherever every table must be known: the
migrations' environment and the test that compares the migrations with the models.

The models modules import one another one way only (app.models <- instructor <- courses <- lti, each importing
the modules whose tables its foreign keys name); nothing imports this module but those that need them all.
"""

from __future__ import annotations

from app.courses import models as course_models
from app.instructor import models as instructor_models
from app.lti import models as lti_models
from app.models import Base

__all__ = ["Base", "course_models", "instructor_models", "lti_models"]
