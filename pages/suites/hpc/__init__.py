"""MLPerf HPC pages (strong and weak scaling)."""
