from django.http import Http404
from django.shortcuts import render

from .exports import summary_rows
from .models import Round
from .services import RoundSlugError, parse_round_slug


def home(request):
    rounds = Round.objects.visible_to(request.user).order_by("suite", "-version")
    return render(request, "results/home.html", {"rounds": rounds})


def round_detail(request, slug: str):
    try:
        suite, version = parse_round_slug(slug)
    except RoundSlugError as exc:
        raise Http404(str(exc)) from exc
    round_ = Round.objects.visible_to(request.user).filter(suite=suite, version=version).first()
    if round_ is None:
        raise Http404("no such round")
    columns, rows = summary_rows(round_, user=request.user)
    benchmarks = list(round_.benchmarks.order_by("name").values_list("name", flat=True))
    for row in rows:
        row["cells"] = [{"score": row[name], "result_id": row[f"{name}_result_id"]} for name in benchmarks]
    context = {"round": round_, "rows": rows, "benchmarks": benchmarks, "colspan": 6 + len(benchmarks)}
    return render(request, "results/round.html", context)
