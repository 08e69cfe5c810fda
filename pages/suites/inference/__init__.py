"""Inference: leaderboards per model and scenario, their charts, result pages (views.py)."""
