"""GET /metrics for Prometheus (see app.metrics_collector for what it holds)."""

from __future__ import annotations

import threading

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from app.deps import StateDep
from app.metrics_collector import PaperLabCollector, make_registry

router = APIRouter(tags=["operations"])
_registry_lock = threading.Lock()


@router.get("/metrics", response_class=Response, include_in_schema=False)
def metrics(request: Request, state: StateDep) -> Response:
    return Response(generate_latest(_registry(request, state)), media_type=CONTENT_TYPE_LATEST)


def _registry(request: Request, state: StateDep) -> CollectorRegistry:
    """One registry per running app (not prometheus_client's global one: several apps may live in one process)."""
    with _registry_lock:
        cached: tuple[object, CollectorRegistry] | None = getattr(request.app.state, "paperlab_metrics", None)
        if cached is None or cached[0] is not state:
            cached = (state, make_registry([PaperLabCollector(state)]))
            request.app.state.paperlab_metrics = cached
        return cached[1]
