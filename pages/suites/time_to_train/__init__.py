"""What the training and MLPerf HPC suites' pages share: results made of runs timed to a quality
target (HPC's time to solution; weak scaling's figures come from such runs too), as the
mlperf-logging result files give them. Not a suite (not in pages/suites/__init__.py's SUITES):
training/ and hpc/ import it, and neither imports the other.

    charts.py    time to train, scaling, batch size, Pareto, energy, convergence, run times,
                 round over round and headlines (Plotly dicts from plain values)
    results.py   a result's page and charts (its runs, convergence, hyperparameters, findings),
                 the convergence unit of a benchmark, the links into MLCommons' published package
    progress.py  a suite's best times across rounds
"""
