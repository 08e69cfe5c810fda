"""Verification: re-run a result's submitted code in a sandbox on a GPU worker (queue `gpu`) and say
whether the claimed time-to-train and quality reproduce. The worker side (worker.py, sandbox/,
reproduce.py, telemetry.py) is Django-free and holds no database credentials."""
