//! `fn-hcl`: the function server and the authoring tool in one binary.

fn main() {}
