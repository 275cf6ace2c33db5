use super::*;
use crate::navigate::tests::fixture;

fn show(src: &str) -> Vec<String> {
    let text = format!("$0{src}");
    let (snap, pos) = fixture(&[("main.hcl", &text)]);
    let f = snap.sources().get(pos.file);
    semantic_tokens(&snap, pos.file)
        .iter()
        .map(|t| {
            format!(
                "{}:{:?}{}",
                &f.text[t.span.start as usize..t.span.end as usize],
                t.kind,
                if t.definition { "+def" } else { "" }
            )
        })
        .collect()
}

#[test]
fn blocks_labels_locals_and_references() {
    let got = show(
        r#"locals {
  n = req.composite.spec.count + 1
}
resource bucket {
  body = { name = "é-${self.name}", ok = !true }
}
composite status {
  body = { c = length([for k, v in n : v if v > 0]) }
}
"#,
    );
    assert_eq!(
        got,
        [
            "locals:Keyword",
            "n:Variable+def",
            "req:Keyword",
            "composite:Keyword",
            "spec:Property",
            "count:Property",
            "+:Operator",
            "1:Number",
            "resource:Keyword",
            "bucket:Class+def",
            "body:Keyword",
            "name:Property",
            "\"é-${:String",
            "self:Keyword",
            "name:Keyword",
            "}\":String",
            "ok:Property",
            "!:Operator",
            "true:Keyword",
            "composite:Keyword",
            "status:EnumMember",
            "body:Keyword",
            "c:Property",
            "length:Function",
            "for:Keyword",
            "k:Variable",
            "v:Variable",
            "in:Keyword",
            "n:Variable",
            "v:Variable",
            "if:Keyword",
            "v:Variable",
            ">:Operator",
            "0:Number",
        ]
    );
}

#[test]
fn functions_and_conditionals() {
    let got = show("function f {\n  arg a {}\n  body = a ? \"x\" : 2\n}\n");
    assert_eq!(
        got,
        [
            "function:Keyword",
            "f:Function+def",
            "arg:Keyword",
            "a:Parameter+def",
            "body:Keyword",
            "a:Variable",
            "?:Operator",
            "\"x\":String",
            "::Operator",
            "2:Number",
        ]
    );
}

#[test]
fn tokens_never_overlap() {
    let (snap, pos) = fixture(&[("main.hcl", "$0locals {\n  a = [for x in y : \"${x}\"]\n}\n")]);
    let toks = semantic_tokens(&snap, pos.file);
    assert!(!toks.is_empty());
    assert!(toks.windows(2).all(|w| w[0].span.end <= w[1].span.start));
}

#[test]
fn broken_text_is_classified_as_far_as_it_parses() {
    let got = show(
        r#"# top
locals {
  n = req.composite.spec.count + 1
  s = "x-${each.key}"
  m = {
    k = upper(n)
  }
resource "bucket" {
  body = { name = self.name, v = [for x in n : x if true] }
  bad = 
"#,
    );
    assert_eq!(
        got,
        [
            "# top:Comment",
            "locals:Keyword",
            "n:Variable+def",
            "req:Keyword",
            "composite:Keyword",
            "spec:Property",
            "count:Property",
            "+:Operator",
            "1:Number",
            "s:Variable+def",
            "\"x-${:String",
            "each:Keyword",
            "key:Keyword",
            "}\":String",
            "m:Variable+def",
            "k:Property",
            "upper:Function",
            "n:Variable",
            "resource:Keyword",
            "\"bucket\":Class+def",
            "body:Keyword",
            "name:Property",
            "self:Keyword",
            "name:Keyword",
            "v:Property",
            "for:Keyword",
            "x:Variable",
            "in:Keyword",
            "n:Variable",
            "x:Variable",
            "if:Keyword",
            "true:Keyword",
            "bad:Keyword",
        ]
    );
}

#[test]
fn half_typed_text_never_panics_and_never_overlaps() {
    let text = "resource \"a\" {\n  body = { x = \"${req.b}\" }\n}\nlocals { y = [1, 2.5e3] }\n";
    for end in 0..=text.len() {
        for tail in ["", "\"", "${", "<<EOT\n", "}", "(", "."] {
            let src = format!("$0{}{tail}", &text[..end]);
            let (snap, pos) = fixture(&[("main.hcl", &src)]);
            let toks = semantic_tokens(&snap, pos.file);
            assert!(
                toks.windows(2).all(|w| w[0].span.end <= w[1].span.start),
                "{src:?}"
            );
        }
    }
}

#[test]
fn text_the_recovery_leaves_out_is_classified_by_the_lexer() {
    // A missing `=` in an object: the parser skips to the object's end.
    let got = show(
        "resource \"b\" {\n  body = {\n    kind \"Bucket\"\n    spec = { n = upper(x) }\n  }\n}\n",
    );
    assert_eq!(
        got,
        [
            "resource:Keyword",
            "\"b\":Class+def",
            "body:Keyword",
            "kind:Variable",
            "\"Bucket\":String",
            "spec:Property",
            "n:Property",
            "upper:Function",
            "x:Variable",
        ]
    );
    // A bracket left open ends before the line after it, but that line's
    // first item was read into the bracket.
    let got = show("locals {\n  a = [1,\n  b = upper(\"x\")\n}\n");
    assert_eq!(
        got,
        [
            "locals:Keyword",
            "a:Variable+def",
            "1:Number",
            "b:Variable",
            "upper:Function",
            "\"x\":String",
        ]
    );
}
