//! crossplane render, in-process.
