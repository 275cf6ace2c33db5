//! test harness helpers: case discovery, YAML semantic diff, bless.
