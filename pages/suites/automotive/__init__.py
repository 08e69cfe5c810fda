"""MLPerf Automotive pages (views.py is the suite's PageSuite)."""
