"""The public pages (one module per page family under views/) and, in config/api.py, the read-only API."""

from django.urls import path, re_path

from .views import (
    benchmarks,
    changes,
    compare,
    embed,
    home,
    logs,
    organizations,
    results,
    rounds,
    search,
    snapshots,
    systems,
    verification,
)

app_name = "pages"

CHART = r"charts/(?P<chart>[a-z-]+)\.(?P<fmt>csv|json|figure\.json)$"
# A public chart's embed page, beside its CSV and JSON (pages/views/embed.py).
EMBED = r"charts/(?P<chart>[a-z-]+)/embed/$"

urlpatterns = [
    path("", home.home, name="home"),
    path("sitemap.xml", home.sitemap, name="sitemap"),
    re_path(r"^sitemaps/(?P<kind>[a-z]+)-(?P<number>[1-9]\d*)\.xml$", home.sitemap_part, name="sitemap-part"),
    path("robots.txt", home.robots_txt, name="robots"),
    path("favicon.ico", home.favicon, name="favicon"),
    path("search/", search.search, name="search"),
    path("changes/", changes.site_changes, name="changes"),
    path("changes.atom", changes.changes_feed, name="changes-feed"),
    path("compare/", compare.compare, name="compare"),
    path("progress/<str:suite>/", home.progress, name="progress"),
    re_path(r"^progress/(?P<suite>[a-z]+)/" + CHART, home.progress_chart, name="progress-chart"),
    re_path(r"^progress/(?P<suite>[a-z]+)/" + EMBED, embed.embeddable(home.progress_chart), name="progress-embed"),
    path("rounds/<str:slug>/", rounds.round_detail, name="round"),
    re_path(r"^rounds/(?P<slug>[^/]+)/table\.(?P<fmt>csv|json)$", rounds.round_export, name="round-export"),
    path("rounds/<str:slug>/summary.csv", rounds.round_summary, name="round-summary"),
    re_path(r"^rounds/(?P<slug>[^/]+)/summary_results\.(?P<fmt>csv|json)$", rounds.round_summary_results,
            name="round-summary-results"),
    path("rounds/<str:slug>/tables.csv", rounds.round_tables_csv, name="round-tables"),
    path("rounds/<str:slug>/changes/", changes.round_changes, name="round-changes"),
    path("rounds/<str:slug>/changes.atom", changes.round_changes_feed, name="round-changes-feed"),
    path("rounds/<str:slug>/snapshots/", snapshots.snapshot_list, name="snapshots"),
    re_path(r"^rounds/(?P<slug>[^/]+)/snapshots/(?P<number>\d+)\.tar\.gz$", snapshots.snapshot_archive,
            name="snapshot-archive"),
    re_path(r"^rounds/(?P<slug>[^/]+)/snapshots/(?P<number>\d+)/(?P<name>[A-Za-z0-9_.]+)$", snapshots.snapshot_file,
            name="snapshot-file"),
    re_path(r"^rounds/(?P<slug>[^/]+)/" + CHART, rounds.round_chart, name="round-chart"),
    re_path(r"^rounds/(?P<slug>[^/]+)/" + EMBED, embed.embeddable(rounds.round_chart), name="round-embed"),
    path("rounds/<str:slug>/<str:name>/", benchmarks.benchmark_detail, name="benchmark"),
    re_path(r"^rounds/(?P<slug>[^/]+)/(?P<name>[^/]+)/" + CHART, benchmarks.benchmark_chart, name="benchmark-chart"),
    re_path(r"^rounds/(?P<slug>[^/]+)/(?P<name>[^/]+)/" + EMBED, embed.embeddable(benchmarks.benchmark_chart),
            name="benchmark-embed"),
    path("r/<str:result_id>", results.permalink, name="permalink"),
    path("r/<str:result_id>/v<int:version>", results.permalink, name="permalink-version"),
    # The same links with the slash people paste after them.
    path("r/<str:result_id>/", results.permalink),
    path("r/<str:result_id>/v<int:version>/", results.permalink),
    path("results/<str:result_id>/", results.result_detail, name="result"),
    re_path(r"^results/(?P<result_id>[^/]+)/" + CHART, results.result_chart, name="result-chart"),
    re_path(r"^results/(?P<result_id>[^/]+)/" + EMBED, embed.embeddable(results.result_chart), name="result-embed"),
    # An earlier version of a result (the current one lives at the address above).
    path("results/<str:result_id>/v<int:version>/", results.result_detail, name="result-version"),
    re_path(r"^results/(?P<result_id>[^/]+)/v(?P<version>\d+)/" + CHART, results.result_chart,
            name="result-version-chart"),
    re_path(r"^results/(?P<result_id>[^/]+)/v(?P<version>\d+)/" + EMBED, embed.embeddable(results.result_chart),
            name="result-version-embed"),
    re_path(r"^logs/(?P<sha256>[0-9a-f]{16,64})/$", logs.run_log, name="log"),
    re_path(r"^logs/(?P<sha256>[0-9a-f]{16,64})/raw$", logs.run_log_raw, name="log-raw"),
    path("organizations/<str:slug>/", organizations.organization_detail, name="organization"),
    path("systems/<str:organization>/<str:system_id>/", systems.system_detail, name="system"),
    # Verification: a reviewer's request, a job's page, its status and charts.
    path("verify/results/<int:result_pk>/request/", verification.request_verification, name="verify-request"),
    path("verify/jobs/<int:pk>/", verification.job_detail, name="verify-job"),
    path("verify/jobs/<int:pk>/status.json", verification.job_status, name="verify-job-status"),
    re_path(r"^verify/jobs/(?P<pk>\d+)/charts/(?P<chart>[a-z-]+)\.(?P<fmt>csv|json)$", verification.job_chart,
            name="verify-job-chart"),
]
