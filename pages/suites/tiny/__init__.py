"""MLPerf Tiny pages (views.py is the suite's PageSuite)."""
