from django.urls import path, re_path

from . import views

app_name = "results"

CHART = r"charts/(?P<chart>[a-z-]+)\.(?P<fmt>csv|json)$"

urlpatterns = [
    path("", views.home, name="home"),
    path("sitemap.xml", views.sitemap, name="sitemap"),
    path("robots.txt", views.robots_txt, name="robots"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("search/", views.search, name="search"),
    path("compare/", views.compare, name="compare"),
    path("progress/<str:suite>/", views.progress, name="progress"),
    re_path(r"^progress/(?P<suite>[a-z]+)/" + CHART, views.progress_chart, name="progress-chart"),
    path("rounds/<str:slug>/", views.round_detail, name="round"),
    re_path(r"^rounds/(?P<slug>[^/]+)/table\.(?P<fmt>csv|json)$", views.round_export, name="round-export"),
    path("rounds/<str:slug>/summary.csv", views.round_summary, name="round-summary"),
    re_path(r"^rounds/(?P<slug>[^/]+)/" + CHART, views.round_chart, name="round-chart"),
    path("rounds/<str:slug>/<str:name>/", views.benchmark_detail, name="benchmark"),
    re_path(r"^rounds/(?P<slug>[^/]+)/(?P<name>[^/]+)/" + CHART, views.benchmark_chart, name="benchmark-chart"),
    path("results/<str:result_id>/", views.result_detail, name="result"),
    re_path(r"^results/(?P<result_id>[^/]+)/" + CHART, views.result_chart, name="result-chart"),
    re_path(r"^logs/(?P<sha256>[0-9a-f]{16,64})/$", views.run_log, name="log"),
    re_path(r"^logs/(?P<sha256>[0-9a-f]{16,64})/raw$", views.run_log_raw, name="log-raw"),
    path("systems/<str:organization>/<str:system_id>/", views.system_detail, name="system"),
]
