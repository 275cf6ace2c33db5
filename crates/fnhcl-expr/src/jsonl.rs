//! JSON lines protocol (see `fn-hcl eval --jsonl`).
