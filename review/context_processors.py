def inbox(request) -> dict:
    """The unread count in the header, for signed-in users (one COUNT query)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    from .models import Notification

    return {"unread_notifications": Notification.objects.filter(user=user, read_at__isnull=True).count()}
