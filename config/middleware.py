"""Cache headers for responses that depend on who asks."""

from django.utils.cache import patch_cache_control, patch_vary_headers


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
