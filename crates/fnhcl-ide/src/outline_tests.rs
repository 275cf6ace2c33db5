use super::*;
use crate::navigate::tests::fixture;

fn tree(snap: &Snapshot, syms: &[Symbol], depth: usize, out: &mut String) {
    for s in syms {
        let f = snap.sources().get(s.span.file);
        let sel = &f.text[s.selection.start as usize..s.selection.end as usize];
        out.push_str(&format!(
            "{}{:?} {} [{}] sel={sel}\n",
            "  ".repeat(depth),
            s.kind,
            s.name,
            s.detail
        ));
        tree(snap, &s.children, depth + 1, out);
    }
}

const SRC: &str = r#"# A program.
# Two comment lines.
locals {
  a = 1
  b = {
    x = 1
  }
}

resource "bucket" {
  body = <<-EOT
    text # not a comment
  EOT
}

function f {
  arg v {}
  body = [
    v,
  ]
}
"#;

#[test]
fn document_symbols_nest_blocks_locals_and_attributes() {
    let text = format!("$0{SRC}");
    let (snap, pos) = fixture(&[("main.hcl", &text)]);
    let mut out = String::new();
    tree(&snap, &document_symbols(&snap, pos.file), 0, &mut out);
    assert_eq!(
        out,
        "Block locals [] sel=locals
  Local a [] sel=a
  Local b [] sel=b
Resource bucket [resource] sel=bucket
  Attribute body [] sel=body
Function f [function] sel=f
  Arg v [arg] sel=v
  Attribute body [] sel=body
"
    );
}

#[test]
fn workspace_symbols_filter_and_rank() {
    let (snap, _) = fixture(&[
        (
            "main.hcl",
            "$0locals {\n  bucket_name = 1\n}\nresource bucket { body = {} }\nresources buckets {\n  for_each = []\n  body     = {}\n}\n",
        ),
        ("other.hcl", "function make_bucket { body = 1 }\n"),
    ]);
    let names = |q: &str| -> Vec<String> {
        workspace_symbols(&snap, q)
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    assert_eq!(
        names("bucket"),
        ["bucket", "bucket_name", "buckets", "make_bucket"]
    );
    assert_eq!(names("mkb"), ["make_bucket"]);
    assert_eq!(names("zzz"), Vec::<String>::new());
    assert_eq!(names("").len(), 4);
    let kinds: Vec<SymbolKind> = workspace_symbols(&snap, "bucket")
        .iter()
        .map(|s| s.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            SymbolKind::Resource,
            SymbolKind::Local,
            SymbolKind::Collection,
            SymbolKind::Function
        ]
    );
}

#[test]
fn folding_ranges_cover_blocks_values_heredocs_and_comment_runs() {
    let text = format!("$0{SRC}");
    let (snap, pos) = fixture(&[("main.hcl", &text)]);
    let f = snap.sources().get(pos.file);
    let lines: Vec<(u32, u32, FoldKind)> = folding_ranges(&snap, pos.file)
        .iter()
        .map(|x| {
            (
                f.line_col(x.span.start).line,
                f.line_col(x.span.end).line,
                x.kind,
            )
        })
        .collect();
    use FoldKind::*;
    assert_eq!(
        lines,
        [
            (1, 2, Comment),
            (3, 8, Region),
            (5, 7, Region),
            (10, 14, Region),
            (11, 13, Region),
            (16, 21, Region),
            (18, 20, Region),
        ]
    );
}

#[test]
fn comments_skip_strings_and_heredocs() {
    let text = "a = \"# no\" # yes\nb = <<EOT\n# no\nEOT\n/* c\n */ // d\n";
    let got: Vec<&str> = comments(FileId(0), text)
        .iter()
        .map(|s| &text[s.start as usize..s.end as usize])
        .collect();
    assert_eq!(got, ["# yes", "/* c\n */", "// d"]);
}

#[test]
fn broken_text_still_folds_comments() {
    let (snap, pos) = fixture(&[("main.hcl", "$0# a\n# b\nresource x {\n  body = {\n")]);
    // The comments fold, and so does what parses of the unclosed block.
    let folds = folding_ranges(&snap, pos.file);
    let kinds: Vec<FoldKind> = folds.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [FoldKind::Comment, FoldKind::Region, FoldKind::Region],
        "{folds:?}"
    );
    let symbols = document_symbols(&snap, pos.file);
    assert_eq!(symbols.len(), 1, "{symbols:?}");
}
