//! HCL native expression evaluator with cty semantics and unknowns.
