# The Omaha server: `docker compose up` runs it with PostgreSQL and Redis (see README.md).
FROM python:3.11.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/srv/omaha/data

WORKDIR /srv/omaha

RUN groupadd --system --gid 10001 omaha \
    && useradd --system --uid 10001 --gid omaha --home-dir /srv/omaha --no-create-home omaha

# The server and its runtime dependencies only: no test or dev extras.
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --no-cache-dir . && rm -rf build ./*.egg-info

COPY alembic.ini ./
COPY migrations ./migrations
COPY static ./static
RUN mkdir -p /srv/omaha/data && chown omaha:omaha /srv/omaha/data

USER 10001:10001
EXPOSE 8000

# The slim image has no curl: ask /healthz with Python.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as r; r.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=4)"]

# Migrations run before the server starts; a database behind head would be refused by serve.
CMD ["sh", "-c", "python -m app migrate && exec python -m app serve"]
