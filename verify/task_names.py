"""What the web side and the GPU worker agree on without sharing code: the task's name and queue."""

RUN_JOB_TASK = "verify.run_job"
GPU_QUEUE = "gpu"
