from django.urls import path

from . import views

app_name = "results"

urlpatterns = [
    path("", views.home, name="home"),
    path("rounds/<str:slug>/", views.round_detail, name="round"),
]
