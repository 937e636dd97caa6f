"""Liveness and readiness for operators and load balancers."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from app import crud
from app.deps import BackendDep, CatalogDep, SessionDep
from app.schemas import Health

router = APIRouter(tags=["operations"])


@router.get("/healthz", response_model=Health, responses={503: {"model": Health}})
@router.head("/healthz", include_in_schema=False)
def healthz(backend: BackendDep, catalog: CatalogDep, session: SessionDep) -> JSONResponse:
    """200 when submissions can be graded; 503 (same body) when grading is unavailable, with the reason."""
    backend_health = backend.health()
    health = Health(
        status="ok" if backend_health.available else "unavailable",
        sandbox=backend_health.sandbox,
        backend=backend_health.backend,
        queue_depth=backend_health.queue_depth,
        queue_limit=backend_health.queue_limit,
        in_flight=crud.count_in_flight(session=session),
        problems=len(catalog),
        invalid_problems=list(catalog.invalid.values()),
        reason=backend_health.reason,
        problems_prepared=backend_health.problems_prepared,
    )
    return JSONResponse(health.model_dump(mode="json"), status_code=200 if backend_health.available else 503)
