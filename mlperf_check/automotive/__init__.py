"""MLPerf Automotive: LoadGen results under <division>/<submitter>/results/<system>/<model>/<scenario>/
(SingleStream, ConstantStream), checked against the round's official checker's rules
(official_rules_data.py, written by scripts/extract_automotive_rules.py) and our stricter ones.

The LoadGen logs are read by mlperf_check.inference.logs and a result is reported as an inference
one (mlperf_check.inference.report): what differs is the rules, the layout checks and the figures.
"""
