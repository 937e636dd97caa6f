# PaperLab: web server and grading worker image (CPU-only torch). The commands that build and run it, and the
# privileges a grading worker needs, are in docs/operations.md ("Deployment").
#
# Base images are build arguments: the official images by default; where they cannot be pulled,
# scripts/container/build-base.sh makes equivalents from Debian's own packages and scripts/container/build-image.sh
# passes them in. Layers go from the least to the most often changed (system, torch, the other dependencies,
# then the code), so a code change rebuilds only the last few small layers.
ARG PYTHON_BASE=python:3.11-slim-bookworm
ARG NODE_BASE=node:20-bookworm-slim

FROM ${NODE_BASE} AS frontend
WORKDIR /src
COPY package.json package-lock.json ./
# Build secret `ca` (optional): a CA bundle for the build's downloads, where the network re-signs TLS (a proxy).
# Used only while downloading; it is not part of any layer.
RUN --mount=type=secret,id=ca \
    if [ -f /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && npm ci --no-audit --no-fund
COPY scripts/build-frontend.mjs ./scripts/
COPY static/src ./static/src
RUN npm run build

# Local wheels pip may take torch from (see TORCH_FIND_LINKS): the build context's scripts/container/wheels/.
FROM scratch AS wheels
COPY scripts/container/wheels/ /

FROM ${PYTHON_BASE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VIRTUAL_ENV=/opt/venv PATH=/opt/venv/bin:$PATH
# A virtualenv, the same on the official image and on Debian's Python (which refuses system-wide pip installs).
# pip's compiled .pyc files stay (~200 MB): the sandbox's view is read-only, and without them every warm sandbox
# compiles torch's modules as it starts (`import torch` measured 10 s with them, 22 s without, on a busy 2-core VM).
RUN python3 -m venv /opt/venv
# The CPU build of torch, pinned exactly as in pyproject.toml: the registry's default torch of that version is
# the multi-GB CUDA build. Give pip either PyTorch's CPU wheel index (TORCH_INDEX_URL) or a place holding the
# CPU wheel (TORCH_FIND_LINKS: /wheels is the context's scripts/container/wheels/, or a URL). The build fails
# rather than ship a CUDA build. What the wheel carries for C++ work, and nothing imports, goes (~190 MB: its
# C++ test programs, the headers for building extensions, which need a compiler the image does not have).
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=""
ARG TORCH_FIND_LINKS=""
RUN --mount=type=bind,from=wheels,target=/wheels --mount=type=secret,id=ca \
    if [ -f /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
 && if [ -z "$TORCH_INDEX_URL$TORCH_FIND_LINKS" ]; then \
      echo "pass --build-arg TORCH_INDEX_URL=<PyTorch's CPU wheel index> or TORCH_FIND_LINKS=/wheels" >&2; exit 1; \
    fi \
 && pip install ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} ${TORCH_FIND_LINKS:+--find-links "$TORCH_FIND_LINKS"} \
        "torch==$TORCH_VERSION" \
 && torch_dir="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/torch" \
 && rm -rf "$torch_dir/test" "$torch_dir/include" \
 && find "$torch_dir/bin" -mindepth 1 -maxdepth 1 ! -name torch_shm_manager -exec rm -rf {} + \
 && python -W ignore -c "import sys, torch; sys.exit(torch.version.cuda and 'torch is a CUDA build: pass the CPU wheel')"
# The other dependencies, from pyproject.toml alone (a code change does not reinstall them). The project itself
# is not installed: it runs from /srv/paperlab (PYTHONPATH), where its settings find problems/, templates/ and
# static/ next to app/, as in a checkout.
WORKDIR /srv/paperlab
COPY pyproject.toml ./
RUN --mount=type=secret,id=ca \
    python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
 && if [ -f /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
 && pip install -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt
# The server and workers run as the unprivileged 'paperlab' user (see the entry point); submissions run as
# nobody inside the sandbox, which sees none of /srv.
RUN useradd --system --create-home --home-dir /home/paperlab --shell /usr/sbin/nologin paperlab \
 && mkdir -p /srv/paperlab/var && chown paperlab /srv/paperlab/var
COPY scripts/container/entrypoint.sh /usr/local/bin/paperlab-entrypoint
COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY --from=frontend /src/static/dist ./static/dist
COPY problems ./problems
COPY grader ./grader
COPY app ./app
ENV PYTHONPATH=/srv/paperlab PAPERLAB_VAR_DIR=/srv/paperlab/var
EXPOSE 8000
ENTRYPOINT ["/usr/local/bin/paperlab-entrypoint"]
# The web server. A grading worker is the same image with `python -m app worker [--concurrency N]`.
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
