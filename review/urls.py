from django.urls import path

from . import views

app_name = "review"
urlpatterns = [
    path("", views.queue, name="queue"),
    path("inbox/", views.inbox, name="inbox"),
    path("preview-systems/", views.preview_systems, name="preview-systems"),
    path("people/", views.people, name="people"),
    path("rounds/", views.rounds, name="rounds"),
    path("rounds/new/", views.new_round, name="new-round"),
    path("rounds/<str:slug>/", views.round_control, name="round"),
    path("results/<str:result_id>/", views.result_review, name="result"),
    path("results/<str:result_id>/diff/", views.version_diff_page, name="diff"),
    path("results/<str:result_id>/objections/", views.file_objection, name="file-objection"),
    path("results/<str:result_id>/waivers/", views.grant_waiver, name="waive"),
    path("results/<str:result_id>/shipped-factor/", views.decide_shipped_factor, name="decide-factor"),
    path("results/<str:result_id>/withdraw/", views.withdraw, name="withdraw"),
    path("results/<str:result_id>/reinstate/", views.reinstate, name="reinstate"),
    path("results/<str:result_id>/borrowing/", views.declare_borrowing, name="declare-borrowing"),
    path("versions/<int:pk>/", views.version_report, name="version"),
    path("versions/<int:pk>/waivers/", views.waive_package_findings, name="waive-package"),
    path("objections/<int:pk>/", views.objection_detail, name="objection"),
    path("objections/<int:pk>/answer/", views.answer_objection, name="answer"),
    path("objections/<int:pk>/resolve/", views.resolve_objection, name="resolve"),
    path("borrowing/<int:pk>/decide/", views.decide_borrowing, name="decide-borrowing"),
    path("borrowing/<int:pk>/override/", views.override_borrowing, name="override-borrowing"),
    path("withdrawals/<int:pk>/decide/", views.decide_withdrawal, name="decide-withdrawal"),
]
