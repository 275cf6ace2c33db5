//! Navigation over small programs; `$0` marks the cursor, the names of the
//! expected places are found by their text.

use std::sync::Arc;

use fnhcl_base::{SourceMap, Span};

use super::*;
use crate::FilePosition;

/// A snapshot of `files` and the position of the `$0` marker.
pub(crate) fn fixture(files: &[(&str, &str)]) -> (Snapshot, FilePosition) {
    let mut sources = SourceMap::new();
    let mut pos = None;
    for (name, text) in files {
        let clean = text.replace("$0", "");
        let id = sources.add(*name, clean);
        if let Some(i) = text.find("$0") {
            pos = Some(FilePosition {
                file: id,
                offset: i as u32,
            });
        }
    }
    let snap = Snapshot::new(Arc::new(sources), Default::default());
    (snap, pos.expect("a $0 marker"))
}

/// `file:line:col-col text` of each span, for readable assertions.
fn show(snap: &Snapshot, spans: &[Span]) -> Vec<String> {
    spans
        .iter()
        .map(|s| {
            let f = snap.sources().get(s.file);
            let lc = f.line_col(s.start);
            format!(
                "{}:{}:{} {}",
                f.name,
                lc.line,
                lc.col,
                &f.text[s.start as usize..s.end as usize]
            )
        })
        .collect()
}

const PROGRAM: &str = r#"locals {
  region = "eu"
  names  = ["a", "b"]
}

function tag {
  arg value {}
  locals {
    region = "x"
  }
  body = "${region}-${value}"
}

resources buckets {
  for_each = toset(names)
  locals {
    inner = "i"
  }
  template {
    body = {
      name   = "${inner}-${self.name}"
      region = region
      tag    = invoke("tag", { value = each.key })
    }
  }
}

resource "policy" {
  body = {
    arn  = req.resource.policy.status.arn
    list = req.resources.buckets
    keys = [for region in names : region]
  }
}
"#;

fn at(marker_after: &str) -> (Snapshot, FilePosition) {
    // Place $0 at the start of the first occurrence of `marker_after`.
    let i = PROGRAM.find(marker_after).expect("marker text");
    let text = format!("{}$0{}", &PROGRAM[..i], &PROGRAM[i..]);
    let other = "locals {\n  other = region\n}\n";
    fixture(&[("main.hcl", &text), ("other.hcl", other)])
}

#[test]
fn definition_of_a_top_level_local_from_another_block() {
    let (snap, pos) = at("region = region\n      tag");
    // The cursor is on the attribute name `region` of the object: nothing.
    assert!(definition(&snap, pos).is_empty());
    let pos = FilePosition {
        offset: pos.offset + "region = ".len() as u32,
        ..pos
    };
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:2:3 region"]
    );
}

#[test]
fn function_bodies_see_their_own_locals_and_args_only() {
    let (snap, pos) = at("region}-${value}");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:9:5 region"]
    );
    let (snap, pos) = at("value}\"\n}");
    assert_eq!(show(&snap, &definition(&snap, pos)), ["main.hcl:7:7 value"]);
}

#[test]
fn each_self_invoke_and_req_resource() {
    let (snap, pos) = at("each.key");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:15:3 for_each"]
    );
    let (snap, pos) = at("self.name");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:19:3 template"]
    );
    let (snap, pos) = at("tag\", {");
    assert_eq!(show(&snap, &definition(&snap, pos)), ["main.hcl:6:10 tag"]);
    let (snap, pos) = at("policy.status");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:28:11 policy"]
    );
    let (snap, pos) = at("buckets\n    keys");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:14:11 buckets"]
    );
    let (snap, pos) = at("inner}-");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:17:5 inner"]
    );
}

#[test]
fn each_only_where_the_evaluator_has_it() {
    let (snap, pos) = fixture(&[(
        "main.hcl",
        "resources r {\n  for_each = [1]\n  locals {\n    x = $0each.key\n  }\n  body = { a = each.key }\n}\n",
    )]);
    assert!(definition(&snap, pos).is_empty());
    let text = &snap.sources().get(pos.file).text;
    let in_body = FilePosition {
        offset: text.rfind("each").unwrap() as u32,
        ..pos
    };
    assert_eq!(
        show(&snap, &definition(&snap, in_body)),
        ["main.hcl:2:3 for_each"]
    );
    assert_eq!(references(&snap, in_body, false).len(), 1);
}

#[test]
fn for_variables_shadow_locals() {
    let (snap, pos) = at("region]");
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["main.hcl:32:17 region"]
    );
}

#[test]
fn references_across_files_with_and_without_the_declaration() {
    let (snap, pos) = at("region = \"eu\"");
    assert_eq!(
        show(&snap, &references(&snap, pos, true)),
        [
            "main.hcl:2:3 region",
            "main.hcl:22:16 region",
            "other.hcl:2:11 region"
        ]
    );
    assert_eq!(references(&snap, pos, false).len(), 2);
    let (snap, pos) = at("each.key");
    assert_eq!(
        show(&snap, &references(&snap, pos, true)),
        ["main.hcl:15:3 for_each", "main.hcl:23:40 each"]
    );
}

#[test]
fn rename_a_resource_updates_req_paths() {
    let (snap, pos) = at("\"policy\"");
    let pos = FilePosition {
        offset: pos.offset + 2,
        ..pos
    };
    assert_eq!(
        show(&snap, &[prepare_rename(&snap, pos).unwrap()]),
        ["main.hcl:28:11 policy"]
    );
    let edits = rename(&snap, pos, "role").unwrap();
    let spans: Vec<Span> = edits.iter().map(|e| e.span).collect();
    assert_eq!(
        show(&snap, &spans),
        ["main.hcl:28:11 policy", "main.hcl:30:25 policy"]
    );
    assert!(edits.iter().all(|e| e.new_text == "role"));
}

#[test]
fn rename_a_function_updates_invoke_strings() {
    let (snap, pos) = at("tag {");
    let edits = rename(&snap, pos, "label").unwrap();
    let spans: Vec<Span> = edits.iter().map(|e| e.span).collect();
    assert_eq!(
        show(&snap, &spans),
        ["main.hcl:6:10 tag", "main.hcl:23:24 tag"]
    );
}

#[test]
fn rename_rejects_bad_names_and_clashes() {
    let (snap, pos) = at("names  =");
    assert!(
        rename(&snap, pos, "1x")
            .unwrap_err()
            .contains("not a valid name")
    );
    assert!(
        rename(&snap, pos, "region")
            .unwrap_err()
            .contains("already")
    );
    assert!(rename(&snap, pos, "req").unwrap_err().contains("reserved"));
    // A name used only inside the function's separate scope is free.
    assert_eq!(rename(&snap, pos, "value").unwrap().len(), 3);
    let (snap, pos) = at("buckets {");
    assert!(rename(&snap, pos, "x").is_ok());
    let (snap, pos) = at("body = {\n    arn");
    assert!(prepare_rename(&snap, pos).is_err());
}

#[test]
fn broken_text_gives_empty_results() {
    let (snap, pos) = fixture(&[("main.hcl", "locals {\n  a = b$0 +\n")]);
    assert!(definition(&snap, pos).is_empty());
    assert!(references(&snap, pos, true).is_empty());
    assert!(rename(&snap, pos, "x").is_err());
}

const ROOT: &str = r#"import "modules/bucket" {}

module "bucket" "logs" {
  region = "eu"
}

requirement vpcs {
  select {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "VPC"
  }
}

resource bucket {
  body = {
    arn  = module.logs.arn
    vpcs = req.extra_resources.vpcs
    self = req.resource.bucket
  }
}
"#;

const MODULE: &str = r#"param "region" {}

resource bucket {
  body = { region = param.region }
}

export {
  arn = req.resource.bucket.status
  resource "bucket" { as = "b" }
}
"#;

fn modules_at(file: &str, needle: &str, delta: u32) -> (Snapshot, FilePosition) {
    let (snap, _) = fixture(&[
        ("main.hcl", &format!("$0{ROOT}")),
        ("modules/bucket/main.hcl", MODULE),
    ]);
    let id = snap.file_id(file).unwrap();
    let text = &snap.sources().get(id).text;
    let offset = text.find(needle).expect("needle") as u32 + delta;
    (snap, FilePosition { file: id, offset })
}

#[test]
fn modules_have_their_own_names() {
    let (snap, pos) = modules_at("modules/bucket/main.hcl", "bucket.status", 0);
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["modules/bucket/main.hcl:3:10 bucket"]
    );
    // The module's resource, with its uses in the module only.
    assert_eq!(
        show(&snap, &references(&snap, pos, false)),
        [
            "modules/bucket/main.hcl:8:22 bucket",
            "modules/bucket/main.hcl:9:13 bucket"
        ]
    );
    let (snap, pos) = modules_at("main.hcl", "bucket\n", 0);
    assert_eq!(
        show(&snap, &references(&snap, pos, false)),
        ["main.hcl:18:25 bucket"]
    );
    let (snap, pos) = modules_at("modules/bucket/main.hcl", "param.region", 7);
    assert_eq!(
        show(&snap, &definition(&snap, pos)),
        ["modules/bucket/main.hcl:1:8 region"]
    );
    assert!(
        rename(&snap, pos, "zone")
            .unwrap_err()
            .contains("cannot be renamed")
    );
}

#[test]
fn module_instances_and_requirements() {
    let (snap, pos) = modules_at("main.hcl", "logs.arn", 1);
    assert_eq!(show(&snap, &definition(&snap, pos)), ["main.hcl:3:18 logs"]);
    let (snap, pos) = modules_at("main.hcl", "vpcs\n", 1);
    assert_eq!(show(&snap, &definition(&snap, pos)), ["main.hcl:7:13 vpcs"]);
    let edits = rename(&snap, pos, "networks").unwrap();
    assert_eq!(edits.len(), 2);
}

/// D40: a name in `depends_on` goes to its block, and renaming the block
/// renames it there too.
#[test]
fn depends_on_names_navigate_and_rename() {
    let text = r#"resource vpc {
  body = { kind = "VPC" }
}

resources subnets {
  for_each   = ["a"]
  depends_on = ["v$0pc"]
  template {
    body = { kind = "Subnet" }
  }
}

resource db {
  depends_on = ["subnets", "vpc"]
  body       = { kind = "Database" }
}
"#;
    let (snap, pos) = fixture(&[("main.hcl", text)]);
    assert_eq!(show(&snap, &definition(&snap, pos)), ["main.hcl:1:10 vpc"]);
    let edits = rename(&snap, pos, "network").unwrap();
    let spans: Vec<Span> = edits.iter().map(|e| e.span).collect();
    assert_eq!(
        show(&snap, &spans),
        [
            "main.hcl:1:10 vpc",
            "main.hcl:7:18 vpc",
            "main.hcl:14:29 vpc"
        ]
    );
    assert_eq!(
        show(&snap, &references(&snap, pos, false)),
        ["main.hcl:7:18 vpc", "main.hcl:14:29 vpc"]
    );
}
