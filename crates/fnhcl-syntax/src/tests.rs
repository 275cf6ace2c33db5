use fnhcl_base::SourceMap;

use super::*;
use crate::ast::*;

fn src(text: &str) -> (SourceMap, fnhcl_base::FileId) {
    let mut sm = SourceMap::new();
    let f = sm.add("main.hcl", text);
    (sm, f)
}

fn expr(text: &str) -> (SourceMap, Expr) {
    let (sm, f) = src(text);
    let (e, d) = parse_expr(&sm, f);
    assert!(d.is_empty(), "{d:?}");
    (sm, e.unwrap())
}

#[test]
fn spans_of_traversal_steps() {
    let (sm, e) = expr("self.resource.status.atProvider.arn");
    assert_eq!(sm.slice(e.span), "self.resource.status.atProvider.arn");
    let ExprKind::GetAttr(src, name) = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!(&*name.name, "arn");
    assert_eq!(sm.slice(name.span), "arn");
    assert_eq!(sm.slice(src.span), "self.resource.status.atProvider");
}

fn sexp(sm: &SourceMap, e: &Expr) -> String {
    let k = match &e.kind {
        ExprKind::Null => "null".to_owned(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Number(n) => format!("num {n}"),
        ExprKind::Template(t) => format!(
            "tmpl{} [{}]",
            if t.heredoc { " heredoc" } else { "" },
            t.parts
                .iter()
                .map(|p| tpart(sm, p))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Tuple(xs) => format!(
            "tuple [{}]",
            xs.iter()
                .map(|x| sexp(sm, x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Object(items) => format!(
            "obj [{}]",
            items
                .iter()
                .map(|it| {
                    let k = match &it.key {
                        ObjectKey::Ident(i) => format!("id {}@{}", i.name, sm.slice(i.span)),
                        ObjectKey::Expr(e) => sexp(sm, e),
                    };
                    format!("{k} = {}", sexp(sm, &it.value))
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Variable(i) => format!("var {}", i.name),
        ExprKind::GetAttr(s, i) => {
            format!("getattr {} .{}@{}", sexp(sm, s), i.name, sm.slice(i.span))
        }
        ExprKind::Index(s, k) => format!("index {} [{}]", sexp(sm, s), sexp(sm, k)),
        ExprKind::Splat { source, each, full } => format!(
            "splat{} {} each {}",
            if *full { "full" } else { "attr" },
            sexp(sm, source),
            sexp(sm, each)
        ),
        ExprKind::SplatItem => "item".to_owned(),
        ExprKind::FuncCall {
            name,
            args,
            expand_final,
        } => format!(
            "call {}@{} [{}]{}",
            name.name,
            sm.slice(name.span),
            args.iter()
                .map(|x| sexp(sm, x))
                .collect::<Vec<_>>()
                .join(", "),
            if *expand_final { "..." } else { "" }
        ),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => format!(
            "cond {} ? {} : {}",
            sexp(sm, cond),
            sexp(sm, then),
            sexp(sm, otherwise)
        ),
        ExprKind::Unary(op, x) => format!("{op:?} {}", sexp(sm, x)),
        ExprKind::Binary(op, a, b) => format!("{op:?} {} {}", sexp(sm, a), sexp(sm, b)),
        ExprKind::For(f) => format!(
            "for {:?} {} in {} : {:?} => {} grp={} if {:?}",
            f.key_var.as_ref().map(|k| k.name.clone()),
            f.value_var.name,
            sexp(sm, &f.collection),
            f.key_expr.as_ref().map(|k| sexp(sm, k)),
            sexp(sm, &f.value_expr),
            f.grouping,
            f.cond.as_ref().map(|c| sexp(sm, c))
        ),
        ExprKind::Parens(x) => format!("parens {}", sexp(sm, x)),
    };
    format!("({k})@`{}`", sm.slice(e.span))
}

fn tpart(sm: &SourceMap, p: &TemplatePart) -> String {
    match p {
        TemplatePart::Literal(s) => format!("{s:?}"),
        TemplatePart::Interpolation(e) => format!("${{{}}}", sexp(sm, e)),
        TemplatePart::If(i) => format!(
            "%if {} then [{}] else [{}] @`{}`",
            sexp(sm, &i.cond),
            i.then
                .parts
                .iter()
                .map(|p| tpart(sm, p))
                .collect::<Vec<_>>()
                .join(", "),
            i.otherwise
                .as_ref()
                .map(|o| o
                    .parts
                    .iter()
                    .map(|p| tpart(sm, p))
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default(),
            sm.slice(i.span)
        ),
        TemplatePart::For(f) => format!(
            "%for {:?} {} in {} [{}] @`{}`",
            f.key_var.as_ref().map(|k| k.name.clone()),
            f.value_var.name,
            sexp(sm, &f.collection),
            f.body
                .parts
                .iter()
                .map(|p| tpart(sm, p))
                .collect::<Vec<_>>()
                .join(", "),
            sm.slice(f.span)
        ),
    }
}

#[test]
fn every_form_parses_with_whole_spans() {
    for t in [
        "a[*].b[0] + f(x, [1, 2]...)",
        "c ? \"s${x}\" : {k = 1, \"q\": 2, (z) = 3}",
        "a.*.b.0[1]",
        "a.b[*].c[*].d",
        "[for k, v in m : upper(v) if k != \"x\"]",
        "{for k, v in m : v => k...}",
        "\"a ${~ x ~} b %{ if c ~} yes %{~ else ~} no %{~ endif } end\"",
        "<<-EOT\n    hello\n      ${x}\n    EOT\n",
        "<<EOT\nhi %{ for x in xs }${x},%{ endfor }\nEOT\n",
        "-1 * !true",
        "provider::ns::fn(1)",
        "a.0.b[1]",
        "x[\"k\"].y",
        "\"\"",
        "1.5e3",
    ] {
        let (sm, e) = expr(t);
        let d = sexp(&sm, &e);
        assert!(d.ends_with(&format!("@`{}`", t.trim_end())), "{t}: {d}");
    }
}

#[test]
fn body_with_blocks_and_labels() {
    let text = "resource my-s3-bucket {\n  body = {a = 1}\n}\n\nresource \"q\" x {\n  locals {\n    y = 2\n  }\n}\n";
    let (sm, f) = src(text);
    let (b, d) = parse_file(&sm, f);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(b.items.len(), 2);
    let Structure::Block(r) = &b.items[0] else {
        panic!()
    };
    assert_eq!(&*r.ident.name, "resource");
    assert_eq!(r.labels[0].value, "my-s3-bucket");
    assert!(!r.labels[0].quoted);
    assert_eq!(sm.slice(r.open_brace), "{");
    assert_eq!(sm.range_text(r.open_brace), "main.hcl:1,23-24");
    assert_eq!(sm.slice(r.header_span()), "resource my-s3-bucket");
    assert!(sm.slice(r.body.span).starts_with('{') && sm.slice(r.body.span).ends_with('}'));
    let Structure::Attribute(a) = &r.body.items[0] else {
        panic!()
    };
    assert_eq!(sm.slice(a.span), "body = {a = 1}");
    assert_eq!(sm.slice(a.name.span), "body");
    let Structure::Block(q) = &b.items[1] else {
        panic!()
    };
    assert_eq!(q.labels[0].value, "q");
    assert!(q.labels[0].quoted);
    assert_eq!(sm.slice(q.labels[0].span), "\"q\"");
    assert_eq!(q.labels[1].value, "x");
    assert_eq!(
        sm.slice(q.span),
        text[text.find("resource \"q\"").unwrap()..].trim_end()
    );
}

#[test]
fn duplicate_attribute_is_an_error() {
    let (sm, f) = src("locals {\n  a = 1\n  a = 2\n}\n");
    let (_, d) = parse_file(&sm, f);
    assert_eq!(d.len(), 1);
    assert_eq!(
        d[0].to_hcl_string(&sm),
        "main.hcl:3,3-4: Attribute redefined; The argument \"a\" was already set at main.hcl:2,3-4. Each argument may be set only once."
    );
    assert_eq!(d[0].code, Some(fnhcl_base::codes::DUPLICATE));
}

#[test]
fn parse_errors_carry_their_code() {
    // Unbalanced brackets, a missing operand, an unterminated string, an
    // unclosed block: syntax errors, each with its code from the parser.
    for text in ["a = (\n", "a = 1 +\n", "a = \"x\n", "b {\n  c {\n}\n"] {
        let (sm, f) = src(text);
        let (_, diags) = parse_file(&sm, f);
        assert!(!diags.is_empty(), "{text:?}");
        for d in diags {
            assert_eq!(d.code, Some(fnhcl_base::codes::SYNTAX), "{text:?}: {d:?}");
        }
    }
    let (sm, f) = src("1 +");
    let (_, d) = parse_expr(&sm, f);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Some(fnhcl_base::codes::SYNTAX));
}

#[test]
fn parse_errors_have_positions() {
    for (t, want) in [
        ("a = \n", "main.hcl:1,5-2,1: Invalid expression"),
        (
            "block {\n  a = 1\n",
            "main.hcl:1,7-8: Unclosed configuration block",
        ),
        ("a = [1, 2\n", "main.hcl"),
    ] {
        let (sm, f) = src(t);
        let (_, d) = parse_file(&sm, f);
        assert_eq!(d.len(), 1, "{t}");
        let s = d[0].to_hcl_string(&sm);
        assert!(s.starts_with(want), "{t:?}: {s}");
    }
}

#[test]
fn traversals_like_hcl_variables() {
    let (sm, e) = expr("[for k, v in req.x : v.a + k + y[0].z + f(w[q]) if u.b] == \"${p.q}\"");
    let got: Vec<&str> = visit::traversals(&e)
        .iter()
        .map(|t| sm.slice(t.span))
        .collect();
    assert_eq!(got, vec!["req.x", "y[0].z", "w", "q", "u.b", "p.q"]);
    let (sm, e) = expr("{for k, v in req.x : k => v.a + y[\"s\"].z + w[q] + a[*].b}");
    let got: Vec<&str> = visit::traversals(&e)
        .iter()
        .map(|t| sm.slice(t.span))
        .collect();
    assert_eq!(got, vec!["req.x", "y[\"s\"].z", "w", "q", "a"]);
    let (sm, e) = expr("\"%{for x in xs}${x.a}${z}%{endfor}\"");
    let got: Vec<&str> = visit::traversals(&e)
        .iter()
        .map(|t| sm.slice(t.span))
        .collect();
    assert_eq!(got, vec!["xs", "z"]);
}

#[test]
fn repeated_object_keys_parse_like_hcl() {
    let (sm, e) = expr("{a = 1, \"k\" = 2, a = 3, \"k\" = 4}");
    let ExprKind::Object(items) = &e.kind else {
        panic!("{e:?}")
    };
    let keys: Vec<String> = items
        .iter()
        .map(|it| match &it.key {
            ObjectKey::Ident(i) => i.name.to_string(),
            ObjectKey::Expr(x) => sm.slice(x.span).to_owned(),
        })
        .collect();
    assert_eq!(keys, vec!["a", "\"k\"", "a", "\"k\""]);
    let ObjectKey::Expr(k) = &items[3].key else {
        panic!()
    };
    let ExprKind::Template(t) = &k.kind else {
        panic!()
    };
    assert!(matches!(t.parts.as_slice(), [TemplatePart::Literal(s)] if &**s == "k"));
    // In a body too.
    let (sm, f) = src("locals {\n  x = {b = 1, b = 2}\n}\n");
    let (b, d) = parse_file(&sm, f);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(b.items.len(), 1);
}

#[test]
fn hcl_traversal_syntax_errors() {
    for (t, want) in [
        (
            "x.0.1",
            "main.hcl:1,3-6: Invalid legacy index syntax; When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [0][1].",
        ),
        // Spaces between: the same error where the number is one token,
        // which HCL blames.
        (
            "x. 0.1",
            "main.hcl:1,4-7: Invalid legacy index syntax; When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax instead, like [0][1].",
        ),
        (
            "x.*.a.*",
            "main.hcl:1,7-8: Nested splat expression not allowed; A splat expression (*) cannot be used inside another attribute-only splat expression.",
        ),
    ] {
        let (sm, f) = src(t);
        let (_, d) = parse_expr(&sm, f);
        assert_eq!(d.len(), 1, "{t}");
        assert_eq!(d[0].to_hcl_string(&sm), want);
    }
}

#[test]
fn hcl_parse_error_summaries() {
    for (t, want) in [
        (
            "locals {\n  a = \"abc\n  b = 1\n}\n",
            "main.hcl:2,11-3,1: Invalid multi-line string",
        ),
        (
            "locals {\n  a = <<EOT\nabc\n}\n",
            "main.hcl:5,1-1: Unterminated template string",
        ),
        (
            "locals {\n  a = [1, 2\n  b = 1\n}\n",
            "main.hcl:3,3-4: Missing item separator",
        ),
        (
            "locals {\n  a = f(1\n}\n",
            "main.hcl:3,1-2: Missing argument separator",
        ),
        (
            "locals\n{\n a = 1\n}\n",
            "main.hcl:1,1-7: Argument or block definition required",
        ),
        (
            "locals {\n  \"a\" = 1\n}\n",
            "main.hcl:2,3-4: Invalid argument name",
        ),
        (
            "locals {\n  a.b = 1\n}\n",
            "main.hcl:2,3-4: Argument or block definition required",
        ),
        (
            "locals {\n  a = 1 }\n",
            "main.hcl:2,9-10: Missing newline after argument",
        ),
        (
            "locals {\n  a = {x = 1\n}\n",
            "main.hcl:1,8-9: Unclosed configuration block",
        ),
    ] {
        let (sm, f) = src(t);
        let (_, d) = parse_file(&sm, f);
        let s = d[0].to_hcl_string(&sm);
        assert!(s.starts_with(want), "{t:?}: {s}");
    }
}

#[test]
fn number_literals_beyond_float64_parse() {
    let (sm, e) = expr("[1e309, -2.5E+400, 1]");
    let ExprKind::Tuple(items) = &e.kind else {
        panic!("{e:?}")
    };
    let texts: Vec<String> = items.iter().map(|x| sm.slice(x.span).to_owned()).collect();
    assert_eq!(texts, vec!["1e309", "-2.5E+400", "1"]);
    assert!(matches!(&items[0].kind, ExprKind::Number(t) if &**t == "1e309"));
}

#[test]
fn a_range_ending_at_a_newline_is_framed_on_one_line() {
    let (sm, f) = src("a = \nb = 1\n");
    let (_, d) = parse_file(&sm, f);
    assert_eq!(
        d[0].to_hcl_string(&sm),
        "main.hcl:1,5-2,1: Invalid expression; Expected the start of an expression, but found an invalid expression token."
    );
    let frame = d[0].to_code_frame(&sm);
    assert!(frame.contains("1 │ a = "), "{frame}");
    assert!(!frame.contains("2 │"), "{frame}");
}

/// An editor's file is mostly half-typed: after each kind of error the
/// rest of the file still parses, item for item as it would alone.
#[test]
fn the_rest_of_a_broken_file_still_parses() {
    let rest = "after = 1\nblock \"x\" {\n  y = [1, 2]\n}\n";
    for broken in [
        "a 1\n",                 // a missing `=`
        "a = \"abc\n",           // an unterminated string
        "a = \"x ${upper(y\n",   // an unterminated interpolation
        "a = param.\n",          // an incomplete traversal
        ") stray\n",             // a stray token
        "a = [1 2]\n",           // an error inside brackets, closed
        "a = { b = 1 c = 2 }\n", // a missing separator
        "a = f(1 2)\n",          // a missing argument separator
        "a = upper(\n",          // an unclosed call
        "a = [1,\n  2,\n",       // an unclosed tuple
        "a = {\n  b = (1\n",     // an unclosed object and parenthesis
    ] {
        let (sm, f) = src(&format!("{broken}{rest}"));
        let (body, d) = parse_file(&sm, f);
        assert!(!d.is_empty(), "{broken:?}: no error");
        let (sm2, f2) = src(rest);
        let (alone, d2) = parse_file(&sm2, f2);
        assert!(d2.is_empty());
        let names = |b: &Body| -> Vec<String> {
            b.items
                .iter()
                .map(|s| match s {
                    Structure::Attribute(a) => a.name.name.to_string(),
                    Structure::Block(b) => format!("{} {}", b.ident.name, b.body.items.len()),
                })
                .collect()
        };
        let got = names(&body);
        // Inside an unclosed bracket newlines do not count, so the line
        // after it is read into it (as HCL reads it); the next line that
        // starts an item ends it.
        let want = names(&alone);
        let want = if broken.starts_with("a = upper(")
            || broken.starts_with("a = \"x ${upper(")
            || broken.starts_with("a = [1,")
            || broken.starts_with("a = {\n  b = (")
        {
            &want[1..]
        } else {
            &want[..]
        };
        assert!(
            got.ends_with(want),
            "{broken:?}: {got:?} does not end with {want:?}"
        );
    }
}

/// After a broken item of an object, the object's next items are read.
#[test]
fn an_object_goes_on_after_a_broken_item() {
    for broken in ["  a = req.\n", "  a req\n", "  a = [1 2]\n", "  = 1\n"] {
        let (sm, f) = src(&format!(
            "x = {{\n{broken}  region = region\n  b = 1\n}}\ny = 2\n"
        ));
        let (body, d) = parse_file(&sm, f);
        assert!(!d.is_empty(), "{broken:?}");
        let names: Vec<&str> = body
            .items
            .iter()
            .filter_map(|s| match s {
                Structure::Attribute(a) => Some(&*a.name.name),
                Structure::Block(_) => None,
            })
            .collect();
        assert_eq!(names, ["x", "y"], "{broken:?}");
        let Structure::Attribute(x) = &body.items[0] else {
            panic!()
        };
        let ExprKind::Object(items) = &x.expr.kind else {
            panic!("{broken:?}: {:?}", x.expr.kind)
        };
        let keys: Vec<String> = items
            .iter()
            .filter_map(|i| match &i.key {
                ObjectKey::Ident(k) => Some(k.name.to_string()),
                ObjectKey::Expr(_) => None,
            })
            .collect();
        assert!(
            keys.ends_with(&["region".to_owned(), "b".to_owned()]),
            "{broken:?}: {keys:?}"
        );
    }
}
