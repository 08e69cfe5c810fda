# Production image: web, worker and beat all run from it (see docker-compose.yml).
FROM python:3.11-slim-bookworm AS base
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DJANGO_ENV=development DEBUG=false python manage.py collectstatic --noinput -v0 \
    && useradd --system --uid 1000 --home /app app && mkdir -p /data/media && chown app /data/media
USER app
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]

# The verification worker (docker-compose `gpu-worker`): root, to start sandboxed runs (bubblewrap
# or sibling containers through the host's Docker socket); it holds no database credentials.
FROM base AS gpu-worker
USER root
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap docker.io \
    && rm -rf /var/lib/apt/lists/*
CMD ["celery", "-A", "verify.gpu_worker", "worker", "-Q", "gpu", "--concurrency", "1", "--prefetch-multiplier", "1"]

# The default target (web, worker, beat): the base image as it is, unprivileged.
FROM base AS app
