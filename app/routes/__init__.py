"""HTTP routes, thin: parse, call app.crud / app.intake, shape the answer."""
