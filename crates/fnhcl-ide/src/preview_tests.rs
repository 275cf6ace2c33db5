use std::sync::Arc;

use fnhcl_base::SourceMap;

use super::*;

const XR: &str = "apiVersion: example.com/v1\nkind: XStorage\nmetadata:\n  name: demo\nspec:\n  region: eu-west-1\n  buckets: [logs, data]\n";

fn snapshot(files: &[(&str, &str)]) -> Snapshot {
    let mut sources = SourceMap::new();
    for (name, text) in files {
        sources.add(*name, *text);
    }
    Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default())
}

fn inputs(xr: &str) -> PreviewInputs {
    PreviewInputs {
        xr: Some(Source::new("xr.yaml", xr)),
        ..PreviewInputs::default()
    }
}

/// The hints of a one-file program as `(text after which, label)`.
fn labels(text: &str, p: &Preview) -> Vec<(String, String)> {
    p.hints
        .iter()
        .map(|h| {
            let before = &text[..h.offset as usize];
            let tail = before.lines().last().unwrap_or("").trim().to_owned();
            (tail, h.label.clone())
        })
        .collect()
}

const PROGRAM: &str = r#"locals {
  region = req.composite.spec.region
  names  = req.composite.spec.buckets
  unused = { a = 1, b = [true, null] }
}

resources buckets {
  for_each = toset(names)
  template {
    locals {
      full = "${each.value}-${region}"
    }
    body = {
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata   = { name = full }
    }
  }
}

resource role {
  body = {
    apiVersion = "iam.aws.upbound.io/v1beta1"
    kind       = "Role"
    spec       = { forProvider = { arn = req.resource.buckets-data.status.atProvider.arn } }
  }
}
"#;

#[test]
fn locals_show_their_values_and_deferred_blocks_their_unknowns() {
    let snap = snapshot(&[("main.hcl", PROGRAM)]);
    let p = preview(&snap, &inputs(XR));
    let rendered = p.rendered.as_ref().expect("renders");
    assert!(rendered.contains("name: data-eu-west-1"), "{rendered}");
    assert!(!rendered.contains("kind: Role"), "{rendered}");
    insta::assert_debug_snapshot!(labels(PROGRAM, &p), @r#"
    [
        (
            "region = req.composite.spec.region",
            "→ \"eu-west-1\"",
        ),
        (
            "names  = req.composite.spec.buckets",
            "→ [\"logs\", \"data\"]",
        ),
        (
            "unused = { a = 1, b = [true, null] }",
            "→ {a = 1, b = [true, null]}",
        ),
        (
            "full = \"${each.value}-${region}\"",
            "→ \"data-eu-west-1\" (1 of 2)",
        ),
        (
            "body =",
            "deferred: waits for req.resource.buckets-data.status.atProvider.arn",
        ),
    ]
    "#);
}

#[test]
fn a_failed_render_still_shows_the_locals() {
    // Two resources set the same status field differently: a conflict.
    let program = "locals {\n  r = req.composite.spec.region\n}\nresource a {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n  composite status {\n    body = { x = 1 }\n  }\n}\nresource b {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n  composite status {\n    body = { x = 2 }\n  }\n}\n";
    let snap = snapshot(&[("main.hcl", program)]);
    let p = preview(&snap, &inputs(XR));
    assert!(p.rendered.is_err(), "{:?}", p.rendered);
    assert_eq!(
        labels(program, &p),
        [(
            "r = req.composite.spec.region".to_owned(),
            "→ \"eu-west-1\"".to_owned()
        )]
    );
}

#[test]
fn without_an_xr_nothing_is_rendered() {
    let snap = snapshot(&[("main.hcl", PROGRAM)]);
    let p = preview(&snap, &PreviewInputs::default());
    assert_eq!(p.rendered, Err(NO_XR.to_owned()));
    assert!(p.hints.is_empty());
}

#[test]
fn broken_programs_and_inputs_give_errors_not_panics() {
    for (program, xr) in [
        ("locals {\n  a = \n", XR),
        ("resource x {", XR),
        ("locals { a = 1 }", "::: not yaml ["),
        ("locals { a = 1 }", ""),
        ("locals { a = 1 }", "- a\n- b\n"),
        ("locals { a = nope }", XR),
        ("", XR),
    ] {
        let snap = snapshot(&[("main.hcl", program)]);
        let p = preview(&snap, &inputs(xr));
        if program == "locals { a = 1 }" {
            assert!(p.rendered.is_err(), "{program:?} {xr:?}: {:?}", p.rendered);
        }
    }
}

#[test]
fn runaway_programs_stop_at_the_step_limit() {
    let program =
        "locals {\n  n = range(1000)\n  big = [for a in n : [for b in n : a * b]]\n  x = 1\n}\n";
    let snap = snapshot(&[("main.hcl", program)]);
    let p = preview(&snap, &inputs(XR));
    // `x` is still shown: an exhausted budget makes the rest unknown.
    assert!(
        p.hints.iter().any(|h| h.label.starts_with("→ ")),
        "{:?}",
        p.hints
    );
}

#[test]
fn values_are_short_and_on_one_line() {
    let v = fnhcl_value::Value::String("a\nb".into());
    assert_eq!(short(&v, 60), r#""a\nb""#);
    let long = fnhcl_value::Value::String("x".repeat(500).into());
    let s = short(&long, 20);
    assert_eq!(s.chars().count(), 20);
    assert!(s.ends_with('…'));
}

/// Members of a collection deferred (or discarded by an error) for the
/// same reason share one hint with their count; an error says so.
#[test]
fn one_hint_per_place_and_errors_are_told_apart() {
    let program = r#"resources waiting {
  for_each = ["a", "b", "c"]
  template {
    body = {
      apiVersion = "v1"
      kind       = "ConfigMap"
      data       = { arn = req.resource.role.status.arn }
    }
  }
}

resource wrong {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    data       = { n = cidrsubnet("10.0.0.0/16", "eight", 1) }
  }
}
"#;
    let snap = snapshot(&[("main.hcl", program)]);
    let p = preview(&snap, &inputs(XR));
    let got = labels(program, &p);
    assert_eq!(
        got,
        [
            (
                "body =".to_owned(),
                "deferred: waits for req.resource.role.status.arn (3×)".to_owned()
            ),
            (
                "body =".to_owned(),
                "error: \"eight\", main.hcl:16,51-56: Invalid function argument for \"cidrsubnet\"; …"
                    .to_owned()
            ),
        ],
        "{got:?}"
    );
}
