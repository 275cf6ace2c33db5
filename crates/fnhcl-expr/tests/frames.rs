//! Snapshot tests of what users see: parse and evaluation errors rendered
//! as `file:line,col` text and as code frames.

use std::collections::BTreeMap;

use fnhcl_base::{SourceMap, render_frames};
use fnhcl_expr::jsonl::parse_vars;
use fnhcl_expr::{EvalContext, Limits};
use fnhcl_value::Value;

fn vars() -> BTreeMap<String, Value> {
    let text = r#"{"req": {"composite": {"spec": {"size": 3, "name": "db"}, "status": null},
                            "resource": {}},
                   "xs": [1, 2, 3], "u": {"$unknown": "string"}}"#;
    parse_vars(text).expect("vars")
}

/// Evaluates an expression from a file `main.hcl` and renders every
/// diagnostic: HCL one-line form, then the code frame.
fn eval_report(src: &str) -> String {
    let vars = vars();
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let mut sources = SourceMap::new();
    let (ev, _) = fnhcl_expr::eval_source(&mut sources, "main.hcl", src, &ctx);
    let mut out = String::new();
    for d in &ev.diagnostics {
        out.push_str(&d.to_hcl_string(&sources));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&render_frames(&ev.diagnostics, &sources));
    out
}

fn parse_report(src: &str) -> String {
    let mut sources = SourceMap::new();
    let f = sources.add("main.hcl", src);
    let (_, diags) = fnhcl_syntax::parse_file(&sources, f);
    let mut out = String::new();
    for d in &diags {
        out.push_str(&d.to_hcl_string(&sources));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&render_frames(&diags, &sources));
    out
}

#[test]
fn eval_error_frames() {
    let cases = [
        ("null_attribute", "req.composite.status.atProvider.arn"),
        ("unsupported_attribute", "req.resource.my-bucket.status"),
        ("unknown_variable", "reqs.composite"),
        ("invalid_index", "xs[7]"),
        ("invalid_operand", "req.composite.spec.name + 1"),
        ("unknown_function", "uper(req.composite.spec.name)"),
        ("function_argument", "upper(xs)"),
        ("inconsistent_conditional", "true ? {a = 1} : {b = 2}"),
        ("for_over_null", "[for x in req.composite.status : x]"),
        ("template_null", "\"name-${req.composite.status}\""),
        (
            "multi_line",
            "{\n  a = req.composite.spec.size\n  b = req.composite.spec.nope\n}",
        ),
        ("try_all_failed", "try(req.nope, xs[9])"),
    ];
    for (name, src) in cases {
        insta::assert_snapshot!(format!("eval_{name}"), eval_report(src), src);
    }
}

#[test]
fn parse_error_frames() {
    let cases = [
        (
            "unclosed_block",
            "resource \"a\" {\n  body = {\n    x = 1\n  }\n",
        ),
        ("missing_value", "locals {\n  a =\n}\n"),
        ("duplicate_attribute", "locals {\n  a = 1\n  a = 2\n}\n"),
        ("bad_escape", "locals {\n  a = \"x\\qy\"\n}\n"),
        ("stray_character", "locals {\n  a = 1 @ 2\n}\n"),
    ];
    for (name, src) in cases {
        insta::assert_snapshot!(format!("parse_{name}"), parse_report(src), src);
    }
}
