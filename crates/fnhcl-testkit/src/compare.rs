//! Semantic comparison of two `crossplane render` output streams, with the
//! rules of `shared/conformance/render_compare.py`:
//!
//! * documents pair by (apiVersion, kind, metadata.name), falling back to
//!   the composition-resource-name annotation, then to position among
//!   unnamed documents of the same kind; Results pair by position among
//!   Results, Contexts likewise; their `metadata.name` is ignored;
//! * `lastTransitionTime` is ignored at any depth;
//! * `conditions` lists whose entries all have a `type` compare as sets
//!   keyed by type; condition and Result messages compare loosely: exactly
//!   when listed as strict, else by the `file.hcl:LINE` positions they
//!   mention, else not at all;
//! * numbers compare numerically, booleans never equal numbers;
//! * optionally, Results of severity `SEVERITY_NORMAL` are dropped on both
//!   sides (decision D21: we emit none).
//!
//! Size: about 640 lines of code; the rest are its unit tests.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use serde_json::{Map, Value};

const RENDER_GROUP_PREFIX: &str = "render.crossplane.io/";
const CRN_ANNOTATION: &str = "crossplane.io/composition-resource-name";

/// A message pattern that must match exactly.
#[derive(Clone, Debug)]
pub enum StrictMessage {
    Literal(String),
    Pattern(Regex),
}

impl StrictMessage {
    /// `re:REGEX` (full match) or a literal.
    pub fn parse(s: &str) -> Result<StrictMessage, String> {
        match s.strip_prefix("re:") {
            Some(re) => Regex::new(&format!("^(?s:{re})$"))
                .map(StrictMessage::Pattern)
                .map_err(|e| format!("bad regular expression {re:?}: {e}")),
            None => Ok(StrictMessage::Literal(s.to_owned())),
        }
    }

    fn matches(&self, m: &str) -> bool {
        match self {
            StrictMessage::Literal(l) => l == m,
            StrictMessage::Pattern(p) => p.is_match(m),
        }
    }
}

/// How to compare.
#[derive(Clone, Debug, Default)]
pub struct CompareOptions {
    pub strict_messages: Vec<StrictMessage>,
    /// Actual messages may mention more positions than expected ones.
    pub positions_subset: bool,
    /// Also compare `metadata.name` of Result/Context documents.
    pub compare_pseudo_names: bool,
    /// Drop `SEVERITY_NORMAL` Results on both sides.
    pub ignore_normal_results: bool,
}

impl CompareOptions {
    /// The project's standard comparison for function-hcl render output:
    /// normal results ignored, the Ready wording compared exactly.
    pub fn standard() -> CompareOptions {
        CompareOptions {
            strict_messages: vec![
                StrictMessage::parse("re:Unready resources: .*")
                    .unwrap_or(StrictMessage::Literal(String::new())),
            ],
            ignore_normal_results: true,
            ..CompareOptions::default()
        }
    }
}

/// Differences of one document (or the stream): a header and lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub header: String,
    pub differences: Vec<String>,
}

/// Renders mismatches for humans.
pub fn format_mismatches(ms: &[Mismatch]) -> String {
    let mut out = String::new();
    for m in ms {
        out.push_str(&m.header);
        out.push('\n');
        for d in &m.differences {
            out.push_str("  - ");
            out.push_str(d);
            out.push('\n');
        }
    }
    out
}

fn fmt_value(v: &Value) -> String {
    let s = match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if s.chars().count() > 160 {
        let cut: String = s.chars().take(157).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn join_path(path: &str, key: &str) -> String {
    let simple = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if simple {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    } else {
        format!("{path}[{key:?}]")
    }
}

fn or_root(path: &str) -> &str {
    if path.is_empty() { "<root>" } else { path }
}

/// `file.hcl:LINE` pairs mentioned in a message.
pub fn positions(message: &str) -> BTreeSet<(String, u64)> {
    let mut out = BTreeSet::new();
    // A file name with an extension, a colon and a line number.
    let re = match Regex::new(r"([\w./-]*\w\.[A-Za-z]\w*):(\d+)") {
        Ok(r) => r,
        Err(_) => return out,
    };
    for c in re.captures_iter(message) {
        let (Some(whole), Some(file), Some(line)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        // Not preceded by a name character, not followed by a digit.
        let before = message[..whole.start()].chars().next_back();
        if before.is_some_and(|b| b.is_alphanumeric() || matches!(b, '_' | '.' | '/' | '-')) {
            continue;
        }
        if message[whole.end()..].starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        if let Ok(n) = line.as_str().parse::<u64>() {
            out.insert((file.as_str().to_owned(), n));
        }
    }
    out
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Number(_))
}

fn numbers_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
                return i == j;
            }
            if let (Some(i), Some(j)) = (x.as_u64(), y.as_u64()) {
                return i == j;
            }
            x.as_f64() == y.as_f64()
        }
        _ => false,
    }
}

fn strip_ignored(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "lastTransitionTime")
                .map(|(k, v)| (k.clone(), strip_ignored(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip_ignored).collect()),
        other => other.clone(),
    }
}

fn is_condition_list(v: &Value) -> bool {
    matches!(v, Value::Array(a) if !a.is_empty() && a.iter().all(|c| c.get("type").is_some_and(Value::is_string)))
}

struct Comparer<'a> {
    opts: &'a CompareOptions,
}

impl Comparer<'_> {
    fn diff(&self, exp: &Value, act: &Value, path: &str, out: &mut Vec<String>) {
        match (exp, act) {
            (Value::Object(e), Value::Object(a)) => {
                let keys: BTreeSet<&String> = e.keys().chain(a.keys()).collect();
                for key in keys {
                    let sub = join_path(path, key);
                    match (e.get(key), a.get(key)) {
                        (Some(ev), None) => {
                            out.push(format!("{sub}: missing (expected {})", fmt_value(ev)))
                        }
                        (None, Some(av)) => {
                            out.push(format!("{sub}: unexpected (got {})", fmt_value(av)))
                        }
                        (Some(ev), Some(av)) => {
                            if key == "conditions" && is_condition_list(ev) && is_condition_list(av)
                            {
                                self.diff_conditions(ev, av, &sub, out);
                            } else {
                                self.diff(ev, av, &sub, out);
                            }
                        }
                        (None, None) => {}
                    }
                }
            }
            (Value::Array(e), Value::Array(a)) => {
                if e.len() != a.len() {
                    out.push(format!(
                        "{}: expected {} items, got {}",
                        or_root(path),
                        e.len(),
                        a.len()
                    ));
                }
                for (i, (ev, av)) in e.iter().zip(a.iter()).enumerate() {
                    self.diff(ev, av, &format!("{path}[{i}]"), out);
                }
            }
            _ if is_number(exp) && is_number(act) => {
                if !numbers_equal(exp, act) {
                    out.push(format!(
                        "{path}: expected {}, got {}",
                        fmt_value(exp),
                        fmt_value(act)
                    ));
                }
            }
            _ => {
                if exp != act {
                    out.push(format!(
                        "{}: expected {}, got {}",
                        or_root(path),
                        fmt_value(exp),
                        fmt_value(act)
                    ));
                }
            }
        }
    }

    fn diff_message(
        &self,
        exp: Option<&Value>,
        act: Option<&Value>,
        path: &str,
        out: &mut Vec<String>,
    ) {
        let Some(Value::String(e)) = exp else {
            if let Some(e) = exp {
                let a = act.cloned().unwrap_or(Value::Null);
                self.diff(e, &a, path, out);
            }
            return;
        };
        let a = act.and_then(Value::as_str);
        if self.opts.strict_messages.iter().any(|s| s.matches(e)) {
            if a != Some(e.as_str()) {
                out.push(format!(
                    "{path}: expected exactly {}, got {}",
                    fmt_value(&Value::String(e.clone())),
                    act.map_or("nothing".to_owned(), fmt_value)
                ));
            }
            return;
        }
        let want = positions(e);
        if want.is_empty() {
            return;
        }
        let got = a.map(positions).unwrap_or_default();
        let ok = if self.opts.positions_subset {
            want.is_subset(&got)
        } else {
            want == got
        };
        if !ok {
            let f = |s: &BTreeSet<(String, u64)>| {
                if s.is_empty() {
                    "none".to_owned()
                } else {
                    s.iter()
                        .map(|(f, l)| format!("{f}:{l}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            out.push(format!(
                "{path}: source positions differ: expected {{{}}}, got {{{}}} (message {})",
                f(&want),
                f(&got),
                act.map_or("nothing".to_owned(), fmt_value)
            ));
        }
    }

    fn diff_conditions(&self, exp: &Value, act: &Value, path: &str, out: &mut Vec<String>) {
        let by_type = |v: &Value| {
            let mut g: BTreeMap<String, Vec<Map<String, Value>>> = BTreeMap::new();
            if let Value::Array(items) = v {
                for c in items {
                    if let (Some(t), Value::Object(m)) = (c.get("type").and_then(Value::as_str), c)
                    {
                        g.entry(t.to_owned()).or_default().push(m.clone());
                    }
                }
            }
            g
        };
        let e_by = by_type(exp);
        let a_by = by_type(act);
        let types: BTreeSet<&String> = e_by.keys().chain(a_by.keys()).collect();
        for t in types {
            let sub = format!("{path}[type={t}]");
            let es = e_by.get(t).map(Vec::as_slice).unwrap_or_default();
            let as_ = a_by.get(t).map(Vec::as_slice).unwrap_or_default();
            if as_.is_empty() {
                out.push(format!("{sub}: missing condition"));
                continue;
            }
            if es.is_empty() {
                let g = |k: &str| as_[0].get(k).map_or("null".to_owned(), fmt_value);
                out.push(format!(
                    "{sub}: unexpected condition (status {}, reason {})",
                    g("status"),
                    g("reason")
                ));
                continue;
            }
            if es.len() != as_.len() {
                out.push(format!(
                    "{sub}: expected {} conditions of this type, got {}",
                    es.len(),
                    as_.len()
                ));
            }
            for (e, a) in es.iter().zip(as_.iter()) {
                let keys: BTreeSet<&String> = e.keys().chain(a.keys()).collect();
                for key in keys {
                    if key == "type" {
                        continue;
                    }
                    let ksub = join_path(&sub, key);
                    if key == "message" {
                        self.diff_message(e.get(key), a.get(key), &ksub, out);
                        continue;
                    }
                    match (e.get(key), a.get(key)) {
                        (Some(ev), None) => {
                            out.push(format!("{ksub}: missing (expected {})", fmt_value(ev)))
                        }
                        (None, Some(av)) => {
                            out.push(format!("{ksub}: unexpected (got {})", fmt_value(av)))
                        }
                        (Some(ev), Some(av)) => self.diff(ev, av, &ksub, out),
                        (None, None) => {}
                    }
                }
            }
        }
    }

    fn pseudo_kind(doc: &Value) -> Option<&'static str> {
        let api = doc.get("apiVersion")?.as_str()?;
        if !api.starts_with(RENDER_GROUP_PREFIX) {
            return None;
        }
        match doc.get("kind")?.as_str()? {
            "Result" => Some("Result"),
            "Context" => Some("Context"),
            _ => None,
        }
    }

    fn normalise(&self, doc: &Value) -> Value {
        let mut doc = strip_ignored(doc);
        if Self::pseudo_kind(&doc).is_some()
            && !self.opts.compare_pseudo_names
            && let Value::Object(m) = &mut doc
        {
            let mut drop_meta = false;
            if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                meta.remove("name");
                drop_meta = meta.is_empty();
            }
            if drop_meta {
                m.remove("metadata");
            }
        }
        doc
    }

    fn label(doc: &Value) -> String {
        let meta = doc.get("metadata").and_then(Value::as_object);
        let name = match meta.and_then(|m| m.get("name")) {
            Some(Value::String(n)) => n.clone(),
            Some(other) => other.to_string(),
            None => {
                match meta
                    .and_then(|m| m.get("annotations"))
                    .and_then(|a| a.get(CRN_ANNOTATION))
                    .and_then(Value::as_str)
                {
                    Some(c) => format!("<{c}>"),
                    None => "<unnamed>".to_owned(),
                }
            }
        };
        let s = |k: &str| match doc.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "None".to_owned(),
        };
        format!("{} {} {}", s("apiVersion"), s("kind"), name)
    }

    fn keyed(docs: &[Value]) -> Vec<(Vec<String>, Value)> {
        let mut counts: BTreeMap<Vec<String>, usize> = BTreeMap::new();
        let mut unnamed: BTreeMap<(String, String), usize> = BTreeMap::new();
        let mut out = Vec::new();
        let s = |v: Option<&Value>| match v {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "None".to_owned(),
        };
        for doc in docs {
            let meta = doc.get("metadata").and_then(Value::as_object);
            let api = s(doc.get("apiVersion"));
            let kind = s(doc.get("kind"));
            let ident: [String; 2] =
                if let Some(n) = meta.and_then(|m| m.get("name")).filter(|n| !n.is_null()) {
                    ["name".into(), s(Some(n))]
                } else if let Some(c) = meta
                    .and_then(|m| m.get("annotations"))
                    .and_then(Value::as_object)
                    .and_then(|a| a.get(CRN_ANNOTATION))
                    .filter(|c| !c.is_null())
                {
                    ["crn".into(), s(Some(c))]
                } else {
                    let n = unnamed.entry((api.clone(), kind.clone())).or_insert(0);
                    *n += 1;
                    ["unnamed".into(), n.to_string()]
                };
            let base = vec![api, kind, ident[0].clone(), ident[1].clone()];
            let c = counts.entry(base.clone()).or_insert(0);
            *c += 1;
            let mut key = base;
            key.push(c.to_string());
            out.push((key, doc.clone()));
        }
        out
    }

    fn compare(&self, expected: &[Value], actual: &[Value]) -> Result<Vec<Mismatch>, String> {
        let mut report = Vec::new();
        if let Some(i) = expected.iter().position(|d| !d.is_object()) {
            return Err(format!("expected document #{} is not a mapping", i + 1));
        }
        for (i, d) in actual.iter().enumerate() {
            if !d.is_object() {
                report.push(Mismatch {
                    header: format!("actual document #{}", i + 1),
                    differences: vec![format!("not a mapping: {}", fmt_value(d))],
                });
            }
        }
        let exp: Vec<Value> = expected.iter().map(|d| self.normalise(d)).collect();
        let act: Vec<Value> = actual
            .iter()
            .filter(|d| d.is_object())
            .map(|d| self.normalise(d))
            .collect();
        let split = |docs: &[Value]| {
            let mut regular = Vec::new();
            let mut results = Vec::new();
            let mut contexts = Vec::new();
            for d in docs {
                match Self::pseudo_kind(d) {
                    Some("Result") => {
                        let normal =
                            d.get("severity").and_then(Value::as_str) == Some("SEVERITY_NORMAL");
                        if !(self.opts.ignore_normal_results && normal) {
                            results.push(d.clone());
                        }
                    }
                    Some(_) => contexts.push(d.clone()),
                    None => regular.push(d.clone()),
                }
            }
            (regular, results, contexts)
        };
        let (e_reg, e_res, e_ctx) = split(&exp);
        let (a_reg, a_res, a_ctx) = split(&act);

        let e_keyed = Self::keyed(&e_reg);
        let a_keyed = Self::keyed(&a_reg);
        let a_map: BTreeMap<&Vec<String>, &Value> = a_keyed.iter().map(|(k, v)| (k, v)).collect();
        let e_keys: BTreeSet<&Vec<String>> = e_keyed.iter().map(|(k, _)| k).collect();
        for (key, edoc) in &e_keyed {
            let header = Self::label(edoc);
            match a_map.get(key) {
                None => report.push(Mismatch {
                    header,
                    differences: vec!["document missing from actual output".to_owned()],
                }),
                Some(adoc) => {
                    let mut diffs = Vec::new();
                    self.diff(edoc, adoc, "", &mut diffs);
                    if !diffs.is_empty() {
                        report.push(Mismatch {
                            header,
                            differences: diffs,
                        });
                    }
                }
            }
        }
        for (key, adoc) in &a_keyed {
            if !e_keys.contains(key) {
                report.push(Mismatch {
                    header: Self::label(adoc),
                    differences: vec!["unexpected document in actual output".to_owned()],
                });
            }
        }
        self.compare_pseudo("Result", &e_res, &a_res, &mut report);
        self.compare_pseudo("Context", &e_ctx, &a_ctx, &mut report);
        Ok(report)
    }

    fn compare_pseudo(&self, kind: &str, exp: &[Value], act: &[Value], report: &mut Vec<Mismatch>) {
        if exp.len() != act.len() {
            report.push(Mismatch {
                header: format!("{kind} documents"),
                differences: vec![format!(
                    "expected {} {kind} documents, got {}",
                    exp.len(),
                    act.len()
                )],
            });
        }
        for (i, (e, a)) in exp.iter().zip(act.iter()).enumerate() {
            let mut diffs = Vec::new();
            let (Value::Object(em), Value::Object(am)) = (e, a) else {
                continue;
            };
            let keys: BTreeSet<&String> = em.keys().chain(am.keys()).collect();
            for key in keys {
                if kind == "Result" && key == "message" {
                    self.diff_message(em.get(key), am.get(key), key, &mut diffs);
                    continue;
                }
                match (em.get(key), am.get(key)) {
                    (Some(ev), None) => {
                        diffs.push(format!("{key}: missing (expected {})", fmt_value(ev)))
                    }
                    (None, Some(av)) => {
                        diffs.push(format!("{key}: unexpected (got {})", fmt_value(av)))
                    }
                    (Some(ev), Some(av)) => self.diff(ev, av, key, &mut diffs),
                    (None, None) => {}
                }
            }
            if !diffs.is_empty() {
                report.push(Mismatch {
                    header: format!("{kind} #{}", i + 1),
                    differences: diffs,
                });
            }
        }
    }
}

/// Compares parsed streams; an empty result means they match.
pub fn compare_documents(
    expected: &[Value],
    actual: &[Value],
    opts: &CompareOptions,
) -> Result<Vec<Mismatch>, String> {
    Comparer { opts }.compare(expected, actual)
}

/// Compares YAML texts; `Err` when one cannot be parsed.
pub fn compare_streams(
    expected: &str,
    actual: &str,
    opts: &CompareOptions,
) -> Result<Vec<Mismatch>, String> {
    let e = fnhcl_render::yaml::load_stream(expected)
        .map_err(|e| format!("cannot parse expected output as YAML: {e}"))?;
    let a = fnhcl_render::yaml::load_stream(actual)
        .map_err(|e| format!("cannot parse actual output as YAML: {e}"))?;
    compare_documents(&e, &a, opts)
}

/// The documents as compared (ignored keys and documents removed), for
/// showing a line diff next to the semantic one.
pub fn normalised_yaml(docs: &[Value], opts: &CompareOptions) -> String {
    let c = Comparer { opts };
    let mut kept: Vec<Value> = docs
        .iter()
        .map(|d| c.normalise(d))
        .filter(|d| {
            !(opts.ignore_normal_results
                && Comparer::pseudo_kind(d) == Some("Result")
                && d.get("severity").and_then(Value::as_str) == Some("SEVERITY_NORMAL"))
        })
        .collect();
    // Regular documents by identity, then Results and Context in order.
    kept.sort_by_key(|d| match Comparer::pseudo_kind(d) {
        None => (0, Comparer::label(d)),
        Some("Result") => (1, String::new()),
        Some(_) => (2, String::new()),
    });
    fnhcl_render::yaml::to_yaml_stream(&kept).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"---
apiVersion: example.com/v1
kind: XS3Bucket
metadata:
  name: bucket
status:
  conditions:
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: 'Unready resources: a, b, and c'
    reason: Creating
    status: "False"
    type: Ready
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: 'hcl.Diagnostics contains 1 warnings; main.hcl:20,32-39: Attempt to get attribute'
    reason: Eval
    status: "False"
    type: HclDiagnostics
  size: 3
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  annotations:
    crossplane.io/composition-resource-name: a
  generateName: bucket-
  name: bucket-a
spec:
  forProvider: {region: eu-west-1, count: 2, flag: true}
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  annotations:
    crossplane.io/composition-resource-name: b
  generateName: bucket-
---
apiVersion: render.crossplane.io/v1beta1
kind: Result
message: "main.hcl:19,12-21,6: discarded resource b"
severity: SEVERITY_WARNING
step: run
---
apiVersion: render.crossplane.io/v1beta1
kind: Result
message: hcl module executed successfully
severity: SEVERITY_NORMAL
step: run
---
apiVersion: render.crossplane.io/v1beta1
kind: Context
fields: null
"#;

    fn check(exp: &str, act: &str, opts: &CompareOptions) -> bool {
        compare_streams(exp, act, opts).unwrap().is_empty()
    }

    /// The cases of render_compare.py's self-test that apply here.
    #[test]
    fn self_test_cases() {
        let d = CompareOptions::default();
        let named = BASE
            .replace(
                "kind: Result\nmessage: \"main",
                "kind: Result\nmetadata: {name: r-0}\nmessage: \"main",
            )
            .replace(
                "kind: Context\n",
                "kind: Context\nmetadata: {name: context}\n",
            );
        let strict = |s: &str| CompareOptions {
            strict_messages: vec![StrictMessage::parse(s).unwrap()],
            ..CompareOptions::default()
        };
        let cases: Vec<(&str, String, bool, CompareOptions)> = vec![
            ("identical", BASE.to_owned(), true, d.clone()),
            ("pseudo names ignored", named.clone(), true, d.clone()),
            (
                "lastTransitionTime ignored",
                BASE.replacen("2024-01-01T00:00:00Z", "2030-05-05T00:00:00Z", 1),
                true,
                d.clone(),
            ),
            (
                "int equals float",
                BASE.replace("size: 3", "size: 3.0"),
                true,
                d.clone(),
            ),
            (
                "bool is not a number",
                BASE.replace("size: 3", "size: true"),
                false,
                d.clone(),
            ),
            (
                "string is not a number",
                BASE.replace("size: 3", "size: '3'"),
                false,
                d.clone(),
            ),
            (
                "changed spec value",
                BASE.replace("region: eu-west-1", "region: us-east-1"),
                false,
                d.clone(),
            ),
            (
                "condition reason",
                BASE.replace("reason: Creating", "reason: Available"),
                false,
                d.clone(),
            ),
            (
                "condition missing",
                BASE.replace("type: HclDiagnostics", "type: Other"),
                false,
                d.clone(),
            ),
            (
                "loose message ignored",
                BASE.replace("Unready resources: a, b, and c", "something else"),
                true,
                d.clone(),
            ),
            (
                "strict message regex",
                BASE.replace("Unready resources: a, b, and c", "Unready resources: a"),
                false,
                strict("re:Unready resources: .*"),
            ),
            (
                "positions equal, wording free",
                BASE.replace(
                    "1 warnings; main.hcl:20,32-39: Attempt to get attribute",
                    "warning at main.hcl:20:33 (null)",
                ),
                true,
                d.clone(),
            ),
            (
                "position line differs",
                BASE.replace("main.hcl:20,32-39", "main.hcl:21,32-39"),
                false,
                d.clone(),
            ),
            (
                "extra position rejected",
                BASE.replace("main.hcl:20,32-39", "main.hcl:20,32-39 and main.hcl:4,1-2"),
                false,
                d.clone(),
            ),
            (
                "extra position allowed by subset",
                BASE.replace("main.hcl:20,32-39", "main.hcl:20,32-39 and main.hcl:4,1-2"),
                true,
                CompareOptions {
                    positions_subset: true,
                    ..CompareOptions::default()
                },
            ),
            (
                "result position",
                BASE.replace("main.hcl:19,12-21,6", "other.hcl:19,12-21,6"),
                false,
                d.clone(),
            ),
            (
                "result severity",
                BASE.replace("severity: SEVERITY_NORMAL", "severity: SEVERITY_WARNING"),
                false,
                d.clone(),
            ),
            (
                "context fields",
                BASE.replace("fields: null", "fields: {processed: x}"),
                false,
                d.clone(),
            ),
            (
                "composed doc keyed by name",
                BASE.replace("name: bucket-a", "name: bucket-z"),
                false,
                d.clone(),
            ),
            (
                "extra document",
                format!("{BASE}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: x}}\n"),
                false,
                d.clone(),
            ),
        ];
        for (name, actual, want, opts) in cases {
            assert_eq!(check(BASE, &actual, &opts), want, "case {name}");
        }
    }

    #[test]
    fn normal_results_can_be_ignored() {
        let without = BASE.replace(
            "---\napiVersion: render.crossplane.io/v1beta1\nkind: Result\nmessage: hcl module executed successfully\nseverity: SEVERITY_NORMAL\nstep: run\n",
            "",
        );
        assert!(!check(BASE, &without, &CompareOptions::default()));
        assert!(check(BASE, &without, &CompareOptions::standard()));
    }

    #[test]
    fn mismatch_report_is_readable() {
        let m = compare_streams(
            BASE,
            &BASE.replace("region: eu-west-1", "region: x"),
            &CompareOptions::default(),
        )
        .unwrap();
        let text = format_mismatches(&m);
        assert!(
            text.contains("s3.aws.upbound.io/v1beta1 Bucket bucket-a"),
            "{text}"
        );
        assert!(
            text.contains("spec.forProvider.region: expected \"eu-west-1\", got \"x\""),
            "{text}"
        );
    }

    #[test]
    fn position_extraction() {
        let p = positions("main.hcl:20,32-39 and dir/x.hcl:4; main.hcl:20 again, b.hcl:");
        let v: Vec<_> = p.into_iter().collect();
        assert_eq!(
            v,
            vec![("dir/x.hcl".to_owned(), 4), ("main.hcl".to_owned(), 20)]
        );
    }
}
