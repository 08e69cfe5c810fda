"""The licence MLCommons publishes MLPerf results under, as every snapshot's README and every
embedded chart's citation line state it."""

LICENCE = "MLPerf results are published by MLCommons under the Apache License 2.0 (https://www.apache.org/licenses/LICENSE-2.0)."
