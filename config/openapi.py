"""OpenAPI schema adjustments (drf-spectacular post-processing hook)."""

OPTIONAL_SIGN_IN = (
    "No authentication needed. Signed in (session or `Authorization: Token …`), a submitter also sees "
    "their own organization's unpublished results."
)


def public_operations_need_no_auth(result, generator, request, public):
    """Operations anonymous callers may use list no security requirement, so Swagger shows no
    padlock on them; their description says what signing in adds. drf-spectacular marks them by
    an empty requirement ({}) among the schemes."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            security = operation.get("security")
            if security and {} in security:
                operation["security"] = []
                operation["description"] = (operation.get("description", "") + "\n\n" + OPTIONAL_SIGN_IN).strip()
    return result
