from django.shortcuts import render

from .models import Round


def home(request):
    rounds = Round.objects.visible_to(request.user)
    return render(request, "results/home.html", {"rounds": rounds})
