"""Signals the review services send for the apps above them."""

from django.dispatch import Signal

# Sent inside the transaction of a waiver, with `submissions`: the versions whose findings it
# waived. The ingest app recounts its finished jobs' errors (ingest.services.recount_errors).
findings_waived = Signal()
