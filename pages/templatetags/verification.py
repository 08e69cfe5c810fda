"""{% verification_panel result %} on the result page: the latest verification's badge, and for
reviewers and chairs the link to request one."""

from django import template

from pages.verification_charts import job_charts
from verify import services
from verify.models import VerificationJob

register = template.Library()


@register.inclusion_tag("verify/result_badge.html", takes_context=True)
def verification_panel(context, result):
    user = context["request"].user
    latest, in_progress = VerificationJob.objects.latest_and_in_progress(result)
    return {
        "result": result,
        "latest": latest,
        # The re-runs beside the claimed runs: times and convergence, as on the job page.
        "charts": job_charts(latest)[:2] if latest and latest.reruns else [],
        "in_progress": in_progress,
        "can_request": services.may_request_for(user, result) and hasattr(result.submission, "upload"),
    }
