"""Review API routes, under /api/v1/review/."""

from django.urls import path

from . import api

urlpatterns = [
    path("review/objections/", api.ObjectionListView.as_view(), name="review-api-objections"),
    path("review/objections/<int:pk>/", api.ObjectionDetailView.as_view(), name="review-api-objection"),
    path("review/objections/<int:pk>/answer/", api.ObjectionAnswerView.as_view(), name="review-api-answer"),
    path("review/objections/<int:pk>/resolve/", api.ObjectionResolveView.as_view(), name="review-api-resolve"),
    path("review/borrowings/", api.BorrowingListView.as_view(), name="review-api-borrowings"),
    path("review/borrowings/<int:pk>/decide/", api.BorrowingDecideView.as_view(), name="review-api-decide"),
    path("review/versions/<int:pk>/waivers/", api.VersionWaiversView.as_view(), name="review-api-version-waivers"),
    path("review/events/", api.EventListView.as_view(), name="review-api-events"),
]
