//! HCL native syntax front end.
//!
//! API boundary: nothing outside this crate sees `hcl-edit` types. Parsing
//! produces our own spanned AST ([`ast`]), whose spans are byte ranges into
//! the files of a [`fnhcl_base::SourceMap`].

pub mod ast;
