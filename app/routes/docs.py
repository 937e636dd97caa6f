"""/docs: the OpenAPI explorer, from the Swagger UI bundled with the app (no CDN, no inline script)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

router = APIRouter(include_in_schema=False)

PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>PaperLab API</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/static/dist/swagger/swagger-ui.css">
  <link rel="stylesheet" href="/static/dist/swagger/swagger-overrides.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/static/dist/swagger/swagger-ui-bundle.js"></script>
  <script src="/static/dist/swagger/swagger-init.js"></script>
</body>
</html>
"""


@router.get("/docs")
def api_docs() -> HTMLResponse:
    return HTMLResponse(PAGE)
