"""The rules of the rounds checked from the official rules data (v2.1 on), as that round's
official checker applies them to one result: one checker per concern, registered in
mlperf_check/finding_sources.py in the order that checker applies them, all reporting as the one
source `inference_round_rules`.

    model            the folder names a benchmark of the round; a Loadgen++ (endpoints) result
    system           systems/<system>.json: status, category, the round's fields, submitter, division
    category         the benchmark belongs to the system's category, the scenario is allowed there
    measurements     the measurements folder, its implementation JSON, power files, the code folder
    accuracy         accuracy/: its files, every figure against its bounds, hash, log size, coverage
    performance_run  performance/run_1: its files, LoadGen settings, equal-issue mode
    token_latency    LLM runs: token latencies on, TTFT and TPOT within the round's limits
    network          a network-division system names itself so in LoadGen's SUT name
    compliance       the model's compliance tests (every division but the open one)

(v0.5-v2.0 use the accuracy, settings and compliance checkers of mlperf_check/inference/checkers/
instead; the layout, division and performance checkers serve every round.)
"""
