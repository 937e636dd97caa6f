"""LTI 1.3: PaperLab as a tool in an LMS (docs/lti.md)."""
