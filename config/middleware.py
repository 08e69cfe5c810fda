"""Cache headers for responses that depend on who asks; 503s for outages of the services behind;
400 for NUL characters in the address."""

import logging

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.utils.cache import patch_cache_control, patch_vary_headers

log = logging.getLogger(__name__)


def client_address(request) -> str | None:
    """The client's address, for login rate limiting. Behind the TLS proxy (SECURE_PROXY_SSL_HEADER
    set) REMOTE_ADDR is the proxy's, shared by everybody: the client is the last X-Forwarded-For
    entry, the one our proxy appended (the earlier ones are whatever the client chose to send)."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.SECURE_PROXY_SSL_HEADER and forwarded.strip():
        return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR")


class NulCharacterMiddleware:
    """A NUL character (%00) in the path or a query parameter answers 400 with the reason: no URL of
    the site has one, and PostgreSQL refuses NUL in text, so it would otherwise reach a query as a
    500. First in the chain, before the page cache keys anything on the path."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            return self.refuse(request, "the address contains a NUL character (%00)")
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                return self.refuse(request, f"the query parameter {name.replace(chr(0), '%00')!r} contains a NUL "
                                            "character (%00)")
        return self.get_response(request)

    @staticmethod
    def refuse(request, reason: str) -> HttpResponse:
        if request.path.startswith(("/api/", "/internal/")):
            return JsonResponse({"detail": reason}, status=400)
        return HttpResponse(f"Bad request: {reason}.", status=400, content_type="text/plain; charset=utf-8")


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
