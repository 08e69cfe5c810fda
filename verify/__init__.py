"""GPU verification worker (sandboxed re-runs on the `gpu` queue; holds no database credentials): a later issue."""
