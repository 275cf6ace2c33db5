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
fn tokens_never_overlap_and_broken_text_has_none() {
    let (snap, pos) = fixture(&[("main.hcl", "$0locals {\n  a = [for x in y : \"${x}\"]\n}\n")]);
    let toks = semantic_tokens(&snap, pos.file);
    assert!(!toks.is_empty());
    assert!(toks.windows(2).all(|w| w[0].span.end <= w[1].span.start));
    assert!(show("locals {\n  a = \n").is_empty());
}
