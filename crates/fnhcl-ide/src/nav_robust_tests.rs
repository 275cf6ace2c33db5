//! The navigation features on half-typed text: every prefix of a program,
//! and every position of a few of them, answer without panicking.

use std::sync::Arc;

use fnhcl_base::SourceMap;

use crate::*;

const PROGRAM: &str = r#"# é😀
locals {
  a = [for x in req.composite.spec.items : "${x}-é" if x != ""]
  b = invoke("f", { v = a })
}
function f {
  arg v {}
  body = v
}
resources c {
  for_each = a
  template {
    body = { n = "${self.basename}-${each.key}", m = req.resources.c, k = <<-EOT
      text
    EOT
    }
  }
}
"#;

fn run_all(text: &str, every_position: bool) {
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text.to_owned());
    let snap = Snapshot::new(Arc::new(sources), Default::default());
    let _ = semantic_tokens(&snap, file);
    let _ = folding_ranges(&snap, file);
    let _ = document_symbols(&snap, file);
    let _ = workspace_symbols(&snap, "a");
    for d in snap.diagnostics() {
        let _ = quick_fix(snap.sources(), d);
    }
    let positions: Vec<usize> = if every_position {
        (0..=text.len())
            .filter(|i| text.is_char_boundary(*i))
            .collect()
    } else {
        vec![text.len()]
    };
    for offset in positions {
        let pos = FilePosition {
            file,
            offset: offset as u32,
        };
        let _ = definition(&snap, pos);
        let _ = references(&snap, pos, true);
        let _ = prepare_rename(&snap, pos);
        let _ = rename(&snap, pos, "z");
    }
}

#[test]
fn every_prefix_and_position() {
    run_all(PROGRAM, true);
    for (i, _) in PROGRAM.char_indices() {
        run_all(&PROGRAM[..i], i % 97 == 0);
    }
}
