//! Requests read from their bytes (`Function::run_bytes`, the server's
//! path: the request read where it is, checked and projected by the
//! program's demand) mean what prost reads them to mean. For every input,
//! the SDK message prost decodes from the same bytes, run, gives the same
//! response; bytes prost refuses give a Fatal result with prost's error.
//! Nothing panics.
//!
//! The input is either a request's bytes as they are (first byte below
//! 0x80), or an edit script applied to one of a few realistic requests
//! (first byte 0x80 and up): random bytes are rarely a request with a
//! program, and the readers' interesting paths are reached from
//! well-formed requests with a few bytes changed. The program reads what
//! the readers project: the composite by parts, observed resources by
//! name, collection membership (annotations), connection details, the
//! context, extra resources, and the desired state passed through.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/fnhcl-crossplane/tests/support/realistic.rs"]
mod realistic;
use realistic::{bases, check_as_prost_reads, edit};

static FUNCTION: std::sync::OnceLock<fnhcl_crossplane::Function> = std::sync::OnceLock::new();
static BASES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let bytes = if first >= 0x80 {
        let bases = BASES.get_or_init(bases);
        edit(&bases[usize::from(first) % bases.len()], rest)
    } else {
        rest.to_vec()
    };
    let f = FUNCTION.get_or_init(fnhcl_crossplane::Function::default);
    check_as_prost_reads(f, &bytes, 0);
});
