use fnhcl_base::{Diagnostic, FileId, Span};

use super::*;
use crate::navigate::tests::fixture;

const PROGRAM: &str = r#"locals {
  region = req.composit.spec.region
  other  = regoin
  n      = lenght([1])
  m      = invoke("make_nam", {})
}

function make_name {
  body = 1
}

resource bucket {
  conditon = true
  body = {
    x = req.resource.buckt.status
    z = self.nam
    w = [for r in [1] : r]
  }
}
"#;

/// Every fix of the analysis of PROGRAM, as `code: old -> new`.
#[test]
fn did_you_mean_of_every_unknown_name() {
    let text = format!("$0{PROGRAM}");
    let (snap, _) = fixture(&[("main.hcl", &text)]);
    let src = snap.sources();
    let mut got: Vec<String> = snap
        .diagnostics()
        .iter()
        .filter_map(|d| {
            let fix = quick_fix(src, d)?;
            let f = src.get(fix.edit.span.file);
            let old = &f.text[fix.edit.span.start as usize..fix.edit.span.end as usize];
            Some(format!(
                "{}: {old} -> {}",
                d.code.unwrap_or("?"),
                fix.edit.new_text
            ))
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            "E0101: conditon -> condition",
            "E0301: regoin -> region",
            "E0302: nam -> name",
            "E0304: composit -> composite",
            "E0401: lenght -> length",
            "E0402: make_nam -> make_name",
            "W0604: buckt -> bucket",
        ]
    );
}

fn diag(summary: &str, detail: &str, span: Span) -> Diagnostic {
    let mut d = Diagnostic::warning(summary, detail);
    d.primary = Some(span);
    d
}

#[test]
fn the_name_is_found_inside_a_wider_span() {
    let (snap, _) = fixture(&[("main.hcl", "$0x = req.composite.spec.regoin\n")]);
    let src = snap.sources();
    let whole = Span::new(FileId(0), 4, 29);
    // The summary quotes the full path: its last step is the name.
    let d = diag(
        "req.composite.spec.regoin is not in the schema",
        "did you mean \"region\"?",
        whole,
    );
    let fix = quick_fix(src, &d).unwrap();
    assert_eq!((fix.edit.span.start, fix.edit.span.end), (23, 29));
    assert_eq!(fix.title, "Change \"regoin\" to \"region\"");
    // Without a quoted name, the closest word.
    let d = diag("unknown field; Did You Mean \"region\"?", "", whole);
    assert_eq!(quick_fix(src, &d).unwrap().edit.span.start, 23);
}

#[test]
fn no_fix_without_a_suggestion_or_a_span() {
    let (snap, _) = fixture(&[("main.hcl", "$0x = y\n")]);
    let src = snap.sources();
    let span = Span::new(FileId(0), 4, 5);
    assert!(quick_fix(src, &diag("unknown y", "", span)).is_none());
    let mut d = diag("unknown y", "did you mean \"z\"?", span);
    assert_eq!(quick_fix(src, &d).unwrap().edit.new_text, "z");
    d.primary = None;
    assert!(quick_fix(src, &d).is_none());
    // A span past the end of the text.
    let d = diag(
        "unknown y",
        "did you mean \"z\"?",
        Span::new(FileId(0), 4, 99),
    );
    assert!(quick_fix(src, &d).is_none());
}
