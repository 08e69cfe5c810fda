"""Cache headers for responses that depend on who asks; 503s for outages of the services behind;
400 for NUL characters in the address or a form and for a malformed page number; text answers
compressed; the client's address behind the proxies."""

import logging

from django.conf import settings
from django.http import HttpResponse, HttpResponseBadRequest, JsonResponse
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_cache_control, patch_vary_headers

from results.paging import BadPage

log = logging.getLogger(__name__)


def client_address(request) -> str | None:
    """The client's address, for login lockouts (django-axes) and rate limits. Each of the
    TRUSTED_PROXY_COUNT proxies in front of the app appends the address it was reached from to
    X-Forwarded-For, so the client is the entry that many from the right: the one the outermost
    proxy wrote (entries further left are whatever the client sent). With no proxy (0), REMOTE_ADDR;
    with fewer entries than proxies (a request that skipped one), the leftmost: DRF's NUM_PROXIES
    rule, which settings sets to the same number."""
    forwarded = [entry.strip() for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if entry.strip()]
    if settings.TRUSTED_PROXY_COUNT and forwarded:
        return forwarded[-min(settings.TRUSTED_PROXY_COUNT, len(forwarded))]
    return request.META.get("REMOTE_ADDR")


def nul_character_in(fields) -> str | None:
    """The name of the first field of a QueryDict with a NUL character in its name or a value."""
    for name, values in fields.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            return name.replace("\x00", "%00")
    return None


class NulCharacterMiddleware:
    """A NUL character (%00) in the path, a query parameter or a form field answers 400 with the
    reason: no URL or form of the site has one, and PostgreSQL refuses NUL in text, so it would
    otherwise reach a query as a 500. First in the chain, before the page cache keys anything on the
    path; the form is read once the view is known (process_view), so a view that streams its own
    body (`streams_request_body`, the upload) installs its upload handlers first."""

    FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            return self.refuse(request, "the address contains a NUL character (%00)")
        if (name := nul_character_in(request.GET)) is not None:
            return self.refuse(request, f"the query parameter {name!r} contains a NUL character (%00)")
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if request.method != "POST" or request.content_type not in self.FORM_TYPES:
            return None
        if getattr(getattr(view_func, "view_class", None), "streams_request_body", False):
            return None  # its serializer refuses NUL (DRF's CharField), after its own handlers read the body
        if (name := nul_character_in(request.POST)) is not None:
            return self.refuse(request, f"the form field {name!r} contains a NUL character (%00)")
        return None

    @staticmethod
    def refuse(request, reason: str) -> HttpResponse:
        if request.path.startswith(("/api/", "/internal/")):
            return JsonResponse({"detail": reason}, status=400)
        return HttpResponse(f"Bad request: {reason}.", status=400, content_type="text/plain; charset=utf-8")


class TextGZipMiddleware(GZipMiddleware):
    """Django's GZipMiddleware (with its BREACH mitigation: random padding in each answer) for the
    text answers built here: pages, CSV, JSON, XML. A stored file streamed from storage (a
    snapshot's file or archive, a raw log, a package) goes as stored: compressing it on every
    download would cost the web process about a CPU-second per 50 MB, which any client could ask
    for again and again. Placed inside WhiteNoise, which sends the static files' own gzip copies;
    an answer from the page cache (pages.caching) arrives compressed already and passes as it is."""

    def process_response(self, request, response):
        content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
        if response.streaming or not (content_type.startswith("text/") or content_type.endswith(("json", "xml"))):
            return response
        return super().process_response(request, response)


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


class BadPageMiddleware:
    """A malformed page number (`?page=x`) answers 400 with the reason, in every paged view: the
    views raise results.paging.BadPage from page_of() and leave the answer to this."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, BadPage):
            return HttpResponseBadRequest(str(exception), content_type="text/plain; charset=utf-8")
        return None


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
