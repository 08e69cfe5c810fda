"""Cache headers for responses that depend on who asks; 503s for outages of the services behind."""

import logging

from django.http import HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control, patch_vary_headers

log = logging.getLogger(__name__)


class PrivateCacheMiddleware:
    """`Cache-Control: private` on every response built for a logged-in user or a token, so no
    shared cache (proxy, CDN) hands one submitter's page or JSON to somebody else; and API answers
    vary on `Authorization`, since a token changes what they contain."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if "HTTP_AUTHORIZATION" in request.META or (user is not None and user.is_authenticated):
            patch_cache_control(response, private=True)
        if request.path.startswith("/api/"):
            patch_vary_headers(response, ["Authorization"])
        return response


class OutageMiddleware:
    """A view that meets a database or Redis outage answers 503 with Retry-After and a sentence,
    never a bare 500: the upload throttle and page cache live in Redis, everything else in
    PostgreSQL, and both come back on their own."""

    RETRY_AFTER_SECONDS = 30

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import InterfaceError, OperationalError
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError

        if isinstance(exception, OperationalError | InterfaceError):
            what = "the database"
        elif isinstance(exception, RedisConnectionError | RedisTimeoutError):
            what = "the cache and queue server (Redis)"
        else:
            return None
        log.warning("503 for %s: %s is unreachable (%s)", request.path, what, exception)
        sentence = f"The service is briefly unavailable: {what} cannot be reached. Try again in a minute."
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": sentence}, status=503)
        else:
            response = HttpResponse(sentence, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(self.RETRY_AFTER_SECONDS)
        patch_cache_control(response, no_store=True)
        return response
