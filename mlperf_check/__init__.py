"""The MLPerf submission checker: parsers, rules, checkers, scoring and archive safety.

Plain Python with no Django: the web app, the ingestion and verification workers and a submitter's
shell (`mlperf-check`) all run this same code.
"""
