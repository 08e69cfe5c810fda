"""Training: the round table, benchmark rankings and charts, result pages (views.py)."""
