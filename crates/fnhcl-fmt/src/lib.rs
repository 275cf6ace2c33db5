//! canonical HCL formatter.
