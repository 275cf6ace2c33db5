//! Completion, hover and signature help on small programs, most of them
//! half-typed (they do not parse). A `|` marks the cursor.
//!
//! Size: unit tests only, one per editor behaviour.

use std::sync::Arc;

use fnhcl_base::SourceMap;

use crate::{CompletionKind, FilePosition, Snapshot};

const XRD: &str = include_str!("../../fnhcl-lsp/tests/python/workspaces/storage/xrd.yaml");
const BUCKET_CRD: &str =
    include_str!("../../fnhcl-schema/tests/data/crds/s3.aws.upbound.io_buckets.yaml");
const ROLE_CRD: &str =
    include_str!("../../fnhcl-schema/tests/data/crds/iam.aws.upbound.io_roles.yaml");

const LIB: &str = r#"
locals {
  region = req.composite.spec.region
}
resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
  }
}
resources roles {
  for_each = ["a"]
  template {
    body = { apiVersion = "iam.aws.upbound.io/v1beta1", kind = "Role" }
  }
}
requirement cluster {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
  }
}
function tag {
  description = "Makes a tag."
  arg name {
    description = "The tag's name."
  }
  arg value {
    default = ""
  }
  locals {
    upper_name = upper(name)
  }
  body = "${upper_name}=${value}"
}
"#;

/// A snapshot of `lib.hcl` (above) and `main.hcl` (`text` without the
/// cursor mark), with the storage XRD and the S3/IAM CRDs; and the cursor.
fn snap(text: &str) -> (Snapshot, FilePosition) {
    let offset = text.find('|').expect("a cursor mark");
    let mut sources = SourceMap::new();
    sources.add("lib.hcl", LIB);
    let file = sources.add("main.hcl", text.replacen('|', "", 1));
    let mut set = fnhcl_schema::SchemaSet::new();
    set.load_text("bucket", BUCKET_CRD).expect("the bucket CRD");
    set.load_text("role", ROLE_CRD).expect("the role CRD");
    let xrd = fnhcl_schema::parse_documents("xrd", XRD).expect("the XRD");
    let options = fnhcl_analyze::Options {
        composite_schema: fnhcl_analyze::composite_schema(&xrd[0], None),
        schemas: Some(Arc::new(set)),
        connection_keys: fnhcl_analyze::connection_keys(&xrd[0]),
        ..fnhcl_analyze::Options::default()
    };
    let pos = FilePosition {
        file,
        offset: offset as u32,
    };
    (Snapshot::new(Arc::new(sources), options), pos)
}

fn labels(text: &str) -> Vec<String> {
    let (s, pos) = snap(text);
    crate::complete(&s, pos)
        .into_iter()
        .map(|i| i.label)
        .collect()
}

/// Every case: the text, labels that must be offered, labels that must not.
#[test]
fn completion_cases() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        // Top level, empty file and after other blocks.
        (
            "|",
            &[
                "resource",
                "resources",
                "locals",
                "function",
                "composite",
                "output",
            ],
            &["body", "req"],
        ),
        (
            "locals {\n}\nres|",
            &["resource", "resources"],
            &["template"],
        ),
        // Inside blocks: the evaluator's schemas.
        (
            "resource x {\n  |\n}",
            &["body", "condition", "locals", "ready"],
            &["template", "for_each"],
        ),
        (
            "resources x {\n  |",
            &["for_each", "template", "name"],
            &["ready"],
        ),
        (
            "resources x {\n  template {\n    |",
            &["body", "ready"],
            &["for_each"],
        ),
        (
            "function f {\n  |",
            &["arg", "body", "description"],
            &["condition"],
        ),
        ("locals {\n  |", &[], &["resource", "body"]),
        (
            "composite |",
            &["status", "connection", "condition", "ready"],
            &[],
        ),
        (
            "composite condition {\n  |",
            &["type", "status", "reason", "message", "target", "condition"],
            &["body", "value"],
        ),
        ("composite ready {\n  |", &["value"], &["body"]),
        (
            "result {\n  |",
            &["severity", "message", "reason", "target", "condition"],
            &["body"],
        ),
        (
            "resource r {\n  |",
            &[
                "optional",
                "condition",
                "body",
                "depends_on",
                "on_incomplete",
            ],
            &[],
        ),
        (
            "resource vpc {\n  body = {}\n}\nresources subnets {\n  for_each = []\n  template {\n    body = {}\n  }\n}\nresource db {\n  depends_on = [\"|",
            &["vpc", "subnets", "db"],
            &["body"],
        ),
        (
            "requirement q {\n  select {\n    |",
            &[
                "apiVersion",
                "kind",
                "matchName",
                "matchLabels",
                "namespace",
            ],
            &["body"],
        ),
        ("composite \"st|", &["status"], &[]),
        // References, while the text does not parse.
        (
            "locals {\n  a = req.|\n}",
            &[
                "composite",
                "resource",
                "extra_resources",
                "credentials",
                "watched",
            ],
            &["spec"],
        ),
        (
            "locals {\n  a = req.composite.|",
            &["spec", "status", "metadata"],
            &[],
        ),
        (
            "locals {\n  a = req.composite.spec.|",
            &["region", "buckets"],
            &["bucketCount"],
        ),
        ("locals {\n  a = req.composite.spec.re|", &["region"], &[]),
        (
            "locals {\n  a = req.composite.status.|",
            &["bucketCount", "phase"],
            &[],
        ),
        ("locals {\n  a = req.resource.|", &["bucket"], &["roles"]),
        ("locals {\n  a = req.connection.|", &["bucket"], &[]),
        ("locals {\n  a = req.resources.|", &["roles"], &["bucket"]),
        ("locals {\n  a = req.extra_resources.|", &["cluster"], &[]),
        (
            "locals {\n  a = req.resource.bucket.spec.forProvider.|",
            &["region", "tags"],
            &[],
        ),
        (
            "locals {\n  a = \"${req.composite.spec.|}\"\n}",
            &["region"],
            &[],
        ),
        ("locals {\n  a = [req.|", &["composite"], &[]),
        ("locals {\n  a = req.resources[|", &["\"roles\""], &[]),
        ("locals {\n  a = req.resources[\"|", &["roles"], &[]),
        // Names in scope.
        (
            "locals {\n  a = |",
            &["req", "region", "upper", "true", "null"],
            &["self", "each", "name", "a"],
        ),
        (
            "resource r {\n  locals {\n    inner = 1\n  }\n  body = |",
            &["inner", "self", "region"],
            &["each"],
        ),
        ("resource other {\n  body = inn|", &["region"], &["inner"]),
        (
            "resources rs {\n  for_each = [1]\n  template {\n    body = |",
            &["each", "self"],
            &[],
        ),
        (
            "resources rs {\n  template {\n    body = each.|",
            &["key", "value"],
            &[],
        ),
        (
            "resource r {\n  body = self.|",
            &["name", "resource", "connection"],
            &["basename"],
        ),
        (
            "resources r {\n  name = self.|",
            &["basename", "resources"],
            &["name"],
        ),
        (
            "function g {\n  arg x {}\n  body = |",
            &["x", "upper"],
            &["req", "region", "upper_name"],
        ),
        // Locals that alias a path, or hold an object, have its members.
        (
            "locals {\n  spec = req.composite.spec\n  s = spec\n  o = { a = 1, b = { c = 2 } }\n  x = s.|",
            &["region", "buckets"],
            &["req"],
        ),
        (
            "locals {\n  o = { a = 1, b = { c = 2 } }\n  x = o.|",
            &["a", "b"],
            &["c"],
        ),
        ("locals {\n  a = a.|", &[], &[]),
        // invoke("…") names the program's user functions.
        ("locals {\n  a = invoke(\"|", &["tag"], &["upper"]),
        ("locals {\n  a = invoke(\"t|\", {})\n}", &["tag"], &[]),
        // Resource bodies: CRD values and fields at any depth.
        (
            "resource n {\n  body = {\n    apiVersion = \"|",
            &["s3.aws.upbound.io/v1beta1", "iam.aws.upbound.io/v1beta1"],
            &[],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"|",
            &["Bucket"],
            &["Role"],
        ),
        (
            "resource n {\n  body = {\n    kind = |",
            &["\"Bucket\"", "\"Role\""],
            &[],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    |",
            &["spec", "metadata"],
            &["forProvider"],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      forProvider = {\n        |\n      }\n    }\n  }\n}",
            &["region", "objectLockEnabled", "tags"],
            &["forProvider"],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      forProvider = { re|",
            &["region"],
            &[],
        ),
        (
            "resource n {\n  body {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      |",
            &["forProvider", "deletionPolicy"],
            &[],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      deletionPolicy = \"|",
            &["Delete", "Orphan"],
            &[],
        ),
        // What is written already is not proposed again.
        (
            "resource x {\n  condition = true\n  |\n  body = {}\n}",
            &["locals"],
            &["condition", "body"],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      forProvider = {\n        region = \"x\"\n        |\n        tags = {}\n",
            &["objectLockEnabled"],
            &["region", "tags"],
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      forProvider = {\n        reg|ion = \"x\"\n",
            &["region"],
            &[],
        ),
        (
            "resource r {\n  ready {\n    value = |",
            &["\"READY_TRUE\"", "\"READY_FALSE\"", "req"],
            &[],
        ),
        (
            "resource r {\n  ready {\n    value = \"READY_|",
            &["READY_TRUE"],
            &["req"],
        ),
        // A requirement's selector names kinds too.
        (
            "requirement r {\n  select {\n    apiVersion = \"|",
            &["s3.aws.upbound.io/v1beta1"],
            &[],
        ),
        // The composite's status body: the XRD's status fields.
        (
            "composite status {\n  body = {\n    |",
            &["bucketCount", "phase"],
            &["region"],
        ),
        (
            "composite status {\n  body = {\n    phase = \"|",
            &["Pending", "Ready"],
            &[],
        ),
        // Nothing where nothing fits (and no panic).
        ("# comment |", &[], &["resource"]),
        ("locals {\n  a = f(x).|", &[], &["req"]),
    ];
    for (text, want, not) in cases {
        let got = labels(text);
        for w in *want {
            assert!(
                got.iter().any(|g| g == w),
                "{text:?}: missing {w:?} in {got:?}"
            );
        }
        for n in *not {
            assert!(
                !got.iter().any(|g| g == n),
                "{text:?}: unexpected {n:?} in {got:?}"
            );
        }
    }
}

#[test]
fn items_replace_the_partial_word_and_describe_themselves() {
    let (s, pos) = snap("locals {\n  a = req.composite.spec.reg|\n}");
    let items = crate::complete(&s, pos);
    let region = items.iter().find(|i| i.label == "region").expect("region");
    assert_eq!(region.kind, CompletionKind::Field);
    assert_eq!(region.detail.as_deref(), Some("string"));
    assert_eq!(
        region.documentation.as_deref(),
        Some("The AWS region of the buckets.")
    );
    assert_eq!(
        (region.replace.start, region.replace.end),
        (pos.offset - 3, pos.offset)
    );
    // After an operator, nothing typed is replaced.
    let (s, pos) = snap("locals {\n  a = 5-|");
    let items = crate::complete(&s, pos);
    assert!(items.iter().any(|i| i.label == "req"));
    assert!(items.iter().all(|i| i.replace.start == pos.offset));
    let (s, pos) = snap("locals {\n  a = upp|");
    let upper = crate::complete(&s, pos)
        .into_iter()
        .find(|i| i.label == "upper")
        .expect("upper");
    assert_eq!(upper.kind, CompletionKind::Function);
    assert_eq!(upper.detail.as_deref(), Some("upper(str string) string"));
    assert_eq!(upper.snippet.as_deref(), Some("upper(${1})"));
    let (s, pos) = snap("resource n {\n  body = {\n    apiVersion = \"s3.aws|");
    let v = crate::complete(&s, pos);
    let v = v.iter().find(|i| i.label.starts_with("s3")).expect("s3");
    // Inside a string, the whole text typed since the quote is replaced.
    assert_eq!(v.replace.end - v.replace.start, 6);
}

#[test]
fn never_panics_on_prefixes_of_a_program() {
    let text = format!(
        "{LIB}\nresource z {{\n  body = {{ a = req.composite[\"spec\"].x, b = invoke(\"tag\", {{ name = \"é\" }}) }}\n}}\n"
    );
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text.clone());
    let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
    for (offset, _) in text.char_indices() {
        let pos = FilePosition {
            file,
            offset: offset as u32,
        };
        crate::complete(&s, pos);
        crate::hover(&s, pos);
        crate::signature_help(&s, pos);
    }
}

fn hover(text: &str) -> Option<String> {
    let (s, pos) = snap(text);
    crate::hover(&s, pos).map(|h| h.markdown)
}

#[test]
fn hover_cases() {
    let cases: &[(&str, &str)] = &[
        (
            "locals {\n  a = req.composite.spec.reg|ion\n}",
            "The AWS region of the buckets.",
        ),
        ("locals {\n  a = req.composite.spec.reg|ion\n}", "`string`"),
        (
            "locals {\n  a = upp|er(\"x\")\n}",
            "upper(str string) string",
        ),
        ("locals {\n  a = reg|ion\n}", "req.composite.spec.region"),
        (
            "locals {\n  a = req.resource.buc|ket\n}",
            "`s3.aws.upbound.io/v1beta1` `Bucket`",
        ),
        (
            "locals {\n  a = req.extra_resources.clu|ster\n}",
            "**requirement** `cluster`",
        ),
        ("locals {\n  a = req.com|posite\n}", "composite resource"),
        ("locals {\n  a = req.cred|entials\n}", "Sensitive"),
        ("locals {\n  a = req.watc|hed\n}", "WatchOperation"),
        ("out|put {\n  body = {}\n}", "An Operation's output"),
        (
            "requirement q {\n  select {\n    names|pace = \"a\"\n  }\n}",
            "Crossplane 2.0+",
        ),
        (
            "resources r {\n  template {\n    body = each.val|ue\n",
            "element of `for_each`",
        ),
        ("res|ource x {\n}", "composed resource"),
        ("resource x {\n  condi|tion = true\n}", "emitted only when"),
        (
            "function g {\n  arg x {\n    description = \"The x.\"\n  }\n  body = x|\n}",
            "The x.",
        ),
        (
            "resource n {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind = \"Bucket\"\n    spec = {\n      forProvider = {\n        regi|on = \"x\"\n",
            "`string`",
        ),
        (
            "composite status {\n  body = {\n    bucket|Count = 1\n",
            "How many buckets exist.",
        ),
        (
            "locals {\n  a = req.resource.bucket.spec.forProvider.reg|ion\n}",
            "**req.resource.bucket.spec.forProvider.region**: `string`",
        ),
        (
            "param region {\n  description = \"Where.\"\n}\nlocals {\n  a = param.reg|ion\n}",
            "**parameter** `region` (main.hcl:1)\n\nWhere.",
        ),
        (
            "locals {\n  a = invoke(\"ta|g\", {})\n}",
            "- `name`: The tag's name.\n- `value` (optional)\n\nMakes a tag.",
        ),
    ];
    for (text, want) in cases {
        let got = hover(text).unwrap_or_default();
        assert!(got.contains(want), "{text:?}: {want:?} not in {got:?}");
    }
    // A local's own name: its expression and, where the text tells, its type.
    for (text, want) in [
        (
            "locals {\n  na|me = \"x-${req.x}\"\n}",
            "**local** `name`: `string`",
        ),
        (
            "locals {\n  n|n = 3\n}",
            "**local** `nn`: `number`\n\n```hcl\nnn = 3\n```",
        ),
        ("locals {\n  o|o = { a = 1 }\n}", "**local** `oo`: `object`"),
        ("locals {\n  t|t = [1]\n}", "**local** `tt`: `tuple`"),
        (
            "locals {\n  sp|ec = req.composite.spec.region\n}",
            "**local** `spec`: `string`",
        ),
        ("locals {\n  a|a = \"x\" + \"y\"\n}", "**local** `aa`\n\n"),
        (
            "resource r {\n  locals {\n    in|ner = true\n  }\n}",
            "**local** `inner`: `bool`",
        ),
    ] {
        let got = hover(text).unwrap_or_default();
        assert!(got.contains(want), "{text:?}: {want:?} not in {got:?}");
    }
    assert_eq!(hover("locals {\n  a = 1 |+ 2\n}"), None);
    assert_eq!(hover("locals {\n  a = nothing_he|re\n}"), None);
}

fn signature(text: &str) -> Option<(String, Option<u32>, Vec<String>)> {
    let (s, pos) = snap(text);
    let h = crate::signature_help(&s, pos)?;
    let params = h
        .signature
        .parameters
        .iter()
        .map(|((a, b), _)| h.signature.label[*a as usize..*b as usize].to_owned())
        .collect();
    Some((h.signature.label, h.active_parameter, params))
}

#[test]
fn signature_help_cases() {
    let (label, active, params) = signature("locals {\n  a = join(\",\", |").expect("join");
    assert_eq!(
        label,
        "join(separator string, lists ...list(string)) string"
    );
    assert_eq!(active, Some(1));
    assert_eq!(params, ["separator string", "lists ...list(string)"]);
    // Variadics stay on the last parameter.
    let (_, active, _) = signature("locals {\n  a = join(\",\", [], [], |").expect("join");
    assert_eq!(active, Some(1));
    // Nested calls: the innermost.
    let (label, active, _) = signature("locals {\n  a = upper(lower(|").expect("lower");
    assert!(label.starts_with("lower("), "{label}");
    assert_eq!(active, Some(0));
    // Too many arguments: no active parameter.
    let (_, active, _) = signature("locals {\n  a = upper(\"a\", |").expect("upper");
    assert_eq!(active, None);
    // User functions through invoke.
    let (label, active, params) =
        signature("locals {\n  a = invoke(\"tag\", { value = |").expect("tag");
    assert_eq!(label, "invoke(\"tag\", { name, value? })");
    assert_eq!(params, ["name", "value?"]);
    assert_eq!(active, Some(1));
    let (_, active, _) = signature("locals {\n  a = invoke(\"tag\", { na|").expect("tag");
    assert_eq!(active, Some(0));
    assert_eq!(signature("locals {\n  a = (1 + |"), None);
    assert_eq!(signature("locals {\n  a = invoke(\"nope\", { |"), None);
    // A string that is only part of the first argument names no function:
    // the built-in invoke's own signature shows.
    let (label, _, _) = signature("locals {\n  a = invoke(\"ta\" + \"g\", { |").expect("invoke");
    assert!(label.starts_with("invoke("), "{label}");
    assert!(!label.starts_with("invoke(\"tag\""), "{label}");
}

#[test]
fn a_module_sees_its_own_names_only() {
    let mut sources = SourceMap::new();
    sources.add(
        "main.hcl",
        "import \"modules/bucket\" {}\nresource root_res {\n  body = {}\n}\nlocals {\n  root_local = 1\n}\n",
    );
    let text = "param region {}\nresource inner {\n  body = {}\n}\nlocals {\n  x = req.resource.\n  y = \n}\n";
    let file = sources.add("modules/bucket/main.hcl", text);
    let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
    let at = |needle: &str| FilePosition {
        file,
        offset: (text.find(needle).expect("needle") + needle.len()) as u32,
    };
    let labels = |pos| -> Vec<String> {
        crate::complete(&s, pos)
            .into_iter()
            .map(|i| i.label)
            .collect()
    };
    assert_eq!(labels(at("req.resource.")), ["inner"]);
    let names = labels(at("y = "));
    assert!(names.contains(&"x".to_owned()), "{names:?}");
    assert!(!names.contains(&"root_local".to_owned()), "{names:?}");
}

#[test]
fn module_instances_complete_their_exports_and_switches_their_attributes() {
    let mut sources = SourceMap::new();
    let text = r#"import "modules/bucket" {}
import "./modules/db" {
  as = "store"
}
module "bucket" "logs" {}
module "store" "main" {}
module "modules/bucket" "tmp" {}
switch "tier" {
  case "small" {
    export {
      class = "s"
    }
  }
  case "large" {
    export {
      class = "l"
    }
  }
  default {
    export {
      class = "none"
    }
  }
}
locals {
  a = module.logs.
  b = module.main.
  c = module.tmp.
  d = switch.tier.
  e = switch.tier.case.
  f = module.nope.
}
"#;
    let file = sources.add("main.hcl", text);
    sources.add(
        "modules/bucket/main.hcl",
        "resource bucket {\n  body = {}\n}\nexport {\n  arn = 1\n  name = \"x\"\n  resource \"bucket\" {\n    as = \"b\"\n  }\n}\n",
    );
    sources.add("modules/db/main.hcl", "export {\n  host = 1\n}\n");
    let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
    let labels = |needle: &str| -> Vec<String> {
        let pos = FilePosition {
            file,
            offset: (text.find(needle).expect("needle") + needle.len()) as u32,
        };
        crate::complete(&s, pos)
            .into_iter()
            .map(|i| i.label)
            .collect()
    };
    assert_eq!(labels("module.logs."), ["arn", "b", "name"]);
    {
        let mut sources = SourceMap::new();
        let main = "import \"modules/bucket\" {}\n\nmodule \"bucket\" \"logs\" {\n  region = \"eu-west-1\"\n}\n\ncomposite status {\n  body = {\n    logsArn = module.logs.\n  }\n}\n";
        let file = sources.add("main.hcl", main);
        sources.add(
            "modules/bucket/main.hcl",
            include_str!("../../fnhcl-lsp/tests/python/workspaces/modules/modules/bucket/main.hcl"),
        );
        let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
        let pos = FilePosition {
            file,
            offset: (main.find("module.logs.").unwrap() + 12) as u32,
        };
        let got: Vec<String> = crate::complete(&s, pos)
            .into_iter()
            .map(|i| i.label)
            .collect();
        assert_eq!(got, ["arn"]);
    }
    assert_eq!(labels("module.main."), ["host"]);
    assert_eq!(labels("module.tmp."), ["arn", "b", "name"]);
    assert_eq!(labels("module.nope."), Vec::<String>::new());
    assert_eq!(
        labels("switch.tier."),
        ["evaluated", "branches", "case", "class"]
    );
    assert_eq!(labels("switch.tier.case."), ["small", "large"]);
}

/// Random cuts and insertions of HCL punctuation into a program: every
/// feature answers at every few offsets without panicking.
#[test]
fn never_panics_on_random_edits() {
    let base = format!(
        "{LIB}\nresource z {{\n  body = {{ a = \"x${{req.composite.spec}}\", b = <<EOT\n  hi ${{each.value}}\nEOT\n  }}\n}}\n"
    );
    let pieces = [
        "{", "}", "[", "]", "(", ")", "\"", "${", ".", ",", "=", "\n", "é", "<<E\n", "/*", "#",
        "req.", "%{",
    ];
    let mut seed = 0x2545_f491_u64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..30 {
        let mut text = base.clone();
        for _ in 0..4 {
            let mut at = next(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            if next(2) == 0 {
                let mut end = (at + next(20)).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.replace_range(at..end, "");
            } else {
                text.insert_str(at, pieces[next(pieces.len())]);
            }
        }
        let mut sources = SourceMap::new();
        let file = sources.add("main.hcl", text.clone());
        let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
        let tokens = crate::semantic_tokens(&s, file);
        assert!(tokens.windows(2).all(|w| w[0].span.end <= w[1].span.start));
        crate::folding_ranges(&s, file);
        for (offset, _) in text.char_indices().step_by(5) {
            let pos = FilePosition {
                file,
                offset: offset as u32,
            };
            crate::complete(&s, pos);
            crate::hover(&s, pos);
            crate::signature_help(&s, pos);
        }
    }
}

#[test]
fn composite_connection_bodies_propose_the_xrd_connection_keys() {
    assert_eq!(
        labels("composite connection {\n  body = {\n    |\n  }\n}"),
        ["endpoint", "password"]
    );
    assert_eq!(
        labels("composite connection {\n  body = {\n    endpoint = \"x\"\n    |\n  }\n}"),
        ["password"]
    );
    // A value is an expression, not a key.
    let values = labels("composite connection {\n  body = {\n    endpoint = req.|\n  }\n}");
    assert!(values.contains(&"connection".to_owned()), "{values:?}");
    assert!(!values.contains(&"password".to_owned()), "{values:?}");
}

/// Inside `module "…" "…" {}`: the parameters its module declares (not
/// the ones already set), and the instance's own attributes.
#[test]
fn module_blocks_complete_their_parameters() {
    let mut sources = SourceMap::new();
    let text =
        "import \"modules/net\" {}\nmodule \"net\" \"main\" {\n  cidr = \"10.0.0.0/16\"\n  \n}\n";
    let file = sources.add("main.hcl", text);
    sources.add(
        "modules/net/main.hcl",
        "param \"cidr\" {}\nparam \"zones\" {\n  default = [\"a\"]\n}\nparam \"region\" {}\nresource vpc {\n  body = { cidr = param.cidr, zones = param.zones, region = param.region }\n}\n",
    );
    let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
    let pos = FilePosition {
        file,
        offset: (text.find("\"\n  \n").expect("the empty line") + 4) as u32,
    };
    let items = crate::complete(&s, pos);
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    for want in [
        "region",
        "zones",
        "condition",
        "depends_on",
        "on_incomplete",
    ] {
        assert!(labels.contains(&want), "{want} in {labels:?}");
    }
    assert!(!labels.contains(&"cidr"), "already set: {labels:?}");
    let region = items.iter().find(|i| i.label == "region").expect("region");
    assert_eq!(
        region.detail.as_deref(),
        Some("module parameter (required)")
    );
    let zones = items.iter().find(|i| i.label == "zones").expect("zones");
    assert_eq!(zones.detail.as_deref(), Some("module parameter"));
}

/// Hover on `module.<instance>` and `switch.<name>`: what they are, the
/// module or branches behind them, their exports.
#[test]
fn hover_on_module_instances_and_switches() {
    let mut sources = SourceMap::new();
    let text = "import \"modules/bucket\" {}\nmodule \"bucket\" \"logs\" {}\nswitch \"tier\" {\n  case \"small\" {\n    condition = true\n    export {\n      class = \"s\"\n    }\n  }\n  default {\n    export {\n      class = \"none\"\n    }\n  }\n}\nlocals {\n  a = module.logs.arn\n  b = switch.tier.class\n}\n";
    let file = sources.add("main.hcl", text);
    sources.add(
        "modules/bucket/main.hcl",
        "resource bucket {\n  body = {}\n}\nexport {\n  arn = 1\n}\n",
    );
    let s = Snapshot::new(Arc::new(sources), fnhcl_analyze::Options::default());
    let at = |needle: &str| {
        let pos = FilePosition {
            file,
            offset: (text.find(needle).expect("needle") + needle.len() - 1) as u32,
        };
        crate::hover(&s, pos)
            .map(|h| h.markdown)
            .unwrap_or_default()
    };
    let m = at("module.logs");
    assert!(
        m.starts_with("**module instance** `logs` of `bucket` (main.hcl:2)"),
        "{m}"
    );
    assert!(m.contains("exports: `arn`"), "{m}");
    let sw = at("switch.tier");
    assert!(sw.starts_with("**switch** `tier` (main.hcl:3)"), "{sw}");
    assert!(sw.contains("branches: `small`, `default`"), "{sw}");
    assert!(sw.contains("exports: `class`"), "{sw}");
}
