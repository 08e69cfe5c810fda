"""Reviewer workflow (objections, resubmissions, borrowing, publication, audit log): a later issue."""
