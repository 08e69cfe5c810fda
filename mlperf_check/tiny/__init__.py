"""MLPerf Tiny: the benchmark runner's results (no LoadGen) under
<division>/<submitter>/results/<system>/<benchmark>/{accuracy,performance,energy}/, checked as the
round's official checker (github.com/mlcommons/tiny tools/submission/submission_checker.py) checks
them, with its rules as data (official_rules_data.py, written by scripts/extract_tiny_rules.py),
plus our stricter rules (docs/differences.md, "MLPerf Tiny")."""
