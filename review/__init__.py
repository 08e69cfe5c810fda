"""Reviewer workflow: round lifecycle, objections, fixes, hyperparameter borrowing, waivers,
publication, the audit trail and notifications. State changes live in review/services/, one
module per concern."""
