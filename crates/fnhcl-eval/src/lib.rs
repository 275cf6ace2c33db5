//! HCL expression evaluator and the function-hcl DSL evaluator.
