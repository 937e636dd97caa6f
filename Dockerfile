# PaperLab: web server and grading worker image (CPU-only torch). Same steps as the Makefile's `setup`.
#
# The sandbox inside the container needs user namespaces and a writable cgroup hierarchy:
#   docker run --cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#              --cgroupns=private -v /sys/fs/cgroup:/sys/fs/cgroup:rw -p 8000:8000 paperlab
# (or --privileged on a dedicated grading host). Without them the grader refuses to run submissions.

FROM node:20-bookworm-slim AS frontend
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY scripts ./scripts
COPY static/src ./static/src
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/paperlab
COPY pyproject.toml README.md ./
COPY grader ./grader
COPY app ./app
# The CPU wheel of torch, pinned exactly as in pyproject.toml (an unpinned torch pulls a multi-GB CUDA build):
# pass PyTorch's CPU wheel index as TORCH_INDEX_URL, or a local wheel directory as TORCH_FIND_LINKS.
ARG TORCH_INDEX_URL=""
ARG TORCH_FIND_LINKS=""
RUN pip install ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"} ${TORCH_FIND_LINKS:+--find-links "$TORCH_FIND_LINKS"} \
        torch==2.13.0 \
 && pip install .
COPY alembic.ini ./
COPY migrations ./migrations
COPY problems ./problems
COPY templates ./templates
COPY --from=frontend /src/static/dist ./static/dist
# The server and workers run as the unprivileged 'paperlab' user: the entry point only hands it a cgroup subtree
# (needed to cap each submission's processes and memory) and drops root. Submissions run as nobody in the sandbox.
RUN useradd --system --create-home --home-dir /home/paperlab paperlab \
 && mkdir -p /srv/paperlab/var && chown paperlab /srv/paperlab/var
COPY scripts/docker-entrypoint.sh /usr/local/bin/paperlab-entrypoint
ENV PAPERLAB_VAR_DIR=/srv/paperlab/var
EXPOSE 8000
ENTRYPOINT ["/usr/local/bin/paperlab-entrypoint"]
CMD ["python", "-m", "app", "serve", "--host", "0.0.0.0", "--port", "8000"]
