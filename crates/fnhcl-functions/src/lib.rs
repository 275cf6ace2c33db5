//! Terraform 1.5.7 built-in functions over the value model.
