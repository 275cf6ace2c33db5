//! The `HclInput` pipeline-step input (upstream §1.1, decisions D1–D3).
//!
//! Decoding is strict: unknown fields and wrong types are errors naming the
//! field, exactly like the Go SDK's strict JSON decoder rejects them.

use std::time::Duration;

use pbjson_types::value::Kind;
use pbjson_types::{Struct, Value as PbValue};

/// Where the program comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The `hcl` field, in txtar form (the default).
    Inline,
    /// Every `*.hcl` file of a directory mounted into the function (D3).
    FileSystem,
}

/// What to do with schema violations of emitted bodies (issue 16): the
/// input field `schemaValidation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaValidation {
    /// Never ask for schemas, never validate.
    Off,
    /// Each violation is a Warning result (the default).
    #[default]
    Warn,
    /// A violation is a Fatal result: nothing is applied.
    Fatal,
}

/// A decoded `HclInput`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HclInput {
    pub source: Source,
    /// The program text (txtar) for the `Inline` source.
    pub hcl: String,
    /// The directory for the `FileSystem` source.
    pub path: String,
    /// Dump request and response for every XR.
    pub debug: bool,
    /// Dump request and response for XRs with no observed resources yet.
    pub debug_new: bool,
    /// Overrides the response TTL (Go duration syntax, e.g. `30s`, `2m`).
    pub ttl: Option<Duration>,
    /// Validation of emitted bodies against the schemas Crossplane supplies.
    pub schema_validation: SchemaValidation,
    /// D32: a missing non-optional resource makes the composite not ready
    /// (`readinessGating: On`, the default; `Off` restores upstream's
    /// behaviour).
    pub readiness_gating: bool,
    /// D34: composed resources without a `ready` block are ready when
    /// their observed object is (`autoReady: true`; default false).
    pub auto_ready: bool,
    /// D37: a Crossplane 2 XR's connection details are composed as a
    /// Secret (`connectionSecret: On`, the default; `Off` keeps the legacy
    /// field, which Crossplane 2 ignores).
    pub connection_secret: bool,
}

/// Every field an `HclInput` may have.
pub const FIELD_NAMES: [&str; 13] = [
    "apiVersion",
    "kind",
    "metadata",
    "source",
    "hcl",
    "path",
    "debug",
    "debugNew",
    "ttl",
    "schemaValidation",
    "readinessGating",
    "autoReady",
    "connectionSecret",
];

/// The known fields, for error messages.
const FIELDS: &str = "apiVersion, kind, metadata, source, hcl, path, debug, debugNew, ttl, schemaValidation, readinessGating, autoReady, connectionSecret";

fn kind_name(v: &PbValue) -> &'static str {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => "null",
        Some(Kind::BoolValue(_)) => "boolean",
        Some(Kind::NumberValue(_)) => "number",
        Some(Kind::StringValue(_)) => "string",
        Some(Kind::StructValue(_)) => "object",
        Some(Kind::ListValue(_)) => "list",
    }
}

fn want_string(field: &str, v: &PbValue) -> Result<Option<String>, String> {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Ok(None),
        Some(Kind::StringValue(s)) => Ok(Some(s.clone())),
        _ => Err(format!(
            "field \"{field}\" must be a string, got {}",
            kind_name(v)
        )),
    }
}

fn want_bool(field: &str, v: &PbValue) -> Result<bool, String> {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Ok(false),
        Some(Kind::BoolValue(b)) => Ok(*b),
        _ => Err(format!(
            "field \"{field}\" must be a boolean, got {}",
            kind_name(v)
        )),
    }
}

/// An `On`/`Off` switch (absent or empty: `default`); YAML's booleans mean
/// the same as the strings.
fn want_on_off(field: &str, v: &PbValue, default: bool) -> Result<bool, String> {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => Ok(default),
        Some(Kind::BoolValue(b)) => Ok(*b),
        Some(Kind::StringValue(s)) if s.is_empty() => Ok(default),
        Some(Kind::StringValue(s)) if s == "On" => Ok(true),
        Some(Kind::StringValue(s)) if s == "Off" => Ok(false),
        Some(Kind::StringValue(s)) => Err(format!(
            "field \"{field}\" must be \"On\" or \"Off\", got {s:?}"
        )),
        _ => Err(format!(
            "field \"{field}\" must be \"On\" or \"Off\", got {}",
            kind_name(v)
        )),
    }
}

impl HclInput {
    /// Decodes the step input. `None` (no input at all) decodes to the empty
    /// input, which then fails [`HclInput::check`] as upstream does.
    pub fn decode(input: Option<&Struct>) -> Result<HclInput, String> {
        let mut out = HclInput {
            source: Source::Inline,
            hcl: String::new(),
            path: String::new(),
            debug: false,
            debug_new: false,
            ttl: None,
            schema_validation: SchemaValidation::default(),
            readiness_gating: true,
            auto_ready: false,
            connection_secret: true,
        };
        let Some(input) = input else {
            return Ok(out);
        };
        // Sorted, so the first unknown field reported is deterministic.
        let mut names: Vec<&String> = input.fields.keys().collect();
        names.sort();
        for name in names {
            let v = &input.fields[name];
            match name.as_str() {
                "apiVersion" | "kind" => {
                    want_string(name, v)?;
                }
                "metadata" => match &v.kind {
                    None | Some(Kind::NullValue(_)) | Some(Kind::StructValue(_)) => {}
                    _ => {
                        return Err(format!(
                            "field \"metadata\" must be an object, got {}",
                            kind_name(v)
                        ));
                    }
                },
                "source" => match want_string(name, v)?.as_deref() {
                    None | Some("") | Some("Inline") => out.source = Source::Inline,
                    Some("FileSystem") => out.source = Source::FileSystem,
                    Some(other) => {
                        return Err(format!(
                            "field \"source\" must be \"Inline\" or \"FileSystem\", got {other:?}"
                        ));
                    }
                },
                "hcl" => out.hcl = want_string(name, v)?.unwrap_or_default(),
                "path" => out.path = want_string(name, v)?.unwrap_or_default(),
                "debug" => out.debug = want_bool(name, v)?,
                "debugNew" => out.debug_new = want_bool(name, v)?,
                "ttl" => {
                    if let Some(text) = want_string(name, v)? {
                        let d = parse_go_duration(&text).ok_or_else(|| {
                            format!(
                                "field \"ttl\" must be a duration such as \"60s\" or \"2m\", got {text:?}"
                            )
                        })?;
                        out.ttl = Some(d);
                    }
                }
                "readinessGating" => out.readiness_gating = want_on_off(name, v, true)?,
                "connectionSecret" => out.connection_secret = want_on_off(name, v, true)?,
                "autoReady" => out.auto_ready = want_bool(name, v)?,
                // YAML 1.1 reads an unquoted Off as false (and On as true).
                "schemaValidation" if matches!(v.kind, Some(Kind::BoolValue(_))) => {
                    out.schema_validation = match v.kind {
                        Some(Kind::BoolValue(false)) => SchemaValidation::Off,
                        _ => SchemaValidation::Warn,
                    }
                }
                "schemaValidation" => {
                    out.schema_validation = match want_string(name, v)?.as_deref() {
                        None | Some("") | Some("Warn") => SchemaValidation::Warn,
                        Some("Off") => SchemaValidation::Off,
                        Some("Fatal") => SchemaValidation::Fatal,
                        Some(other) => {
                            return Err(format!(
                                "field \"schemaValidation\" must be \"Off\", \"Warn\" or \"Fatal\", got {other:?}"
                            ));
                        }
                    }
                }
                other => {
                    return Err(match suggest(other) {
                        Some(known) => format!(
                            "unknown field {other:?} in HclInput, did you mean {known:?}? (known fields: {FIELDS})"
                        ),
                        None => {
                            format!("unknown field {other:?} in HclInput (known fields: {FIELDS})")
                        }
                    });
                }
            }
        }
        Ok(out)
    }

    /// The checks that follow decoding (upstream §1.1 order).
    pub fn check(&self) -> Result<(), String> {
        match self.source {
            Source::Inline => {
                if !self.path.is_empty() {
                    return Err("field \"path\" is only allowed with source: FileSystem".to_owned());
                }
                if self.hcl.is_empty() {
                    return Err("input HCL was not specified".to_owned());
                }
            }
            Source::FileSystem => {
                if !self.hcl.is_empty() {
                    return Err(
                        "fields \"hcl\" and \"path\" are mutually exclusive: source: FileSystem reads the program from path"
                            .to_owned(),
                    );
                }
                if self.path.is_empty() {
                    return Err("source: FileSystem needs a directory in field \"path\"".to_owned());
                }
            }
        }
        Ok(())
    }
}

/// The known field closest to a misspelled one (case-insensitive edit
/// distance of at most 2).
fn suggest(field: &str) -> Option<&'static str> {
    // Only the first 64 characters are compared (bounded work).
    let first_64 = |s: &str| s.to_ascii_lowercase().chars().take(64).collect::<String>();
    let field = first_64(field);
    FIELD_NAMES
        .iter()
        .filter_map(|k| Some((fnhcl_base::edit_distance(&field, &first_64(k), 64)?, *k)))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Parses Go's `time.ParseDuration` syntax for non-negative durations:
/// a sequence of decimal numbers with units `ns`, `us`/`µs`, `ms`, `s`, `m`,
/// `h` (e.g. `1m30s`, `1.5h`, `0`).
pub fn parse_go_duration(text: &str) -> Option<Duration> {
    let s = text.strip_prefix('+').unwrap_or(text);
    if s == "0" {
        return Some(Duration::ZERO);
    }
    if s.is_empty() {
        return None;
    }
    let mut rest = s;
    let mut total_nanos: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total_nanos += number * factor;
    }
    if !total_nanos.is_finite() || total_nanos > 1e18 {
        return None;
    }
    Some(Duration::from_nanos(total_nanos.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::json_to_struct;

    fn decode(json: serde_json::Value) -> Result<HclInput, String> {
        let s = json_to_struct(&json).expect("object");
        HclInput::decode(Some(&s))
    }

    #[test]
    fn accepts_the_upstream_shape() {
        let input = decode(serde_json::json!({
            "apiVersion": "function-hcl/v1", "kind": "HclInput", "source": "Inline",
            "hcl": "-- main.hcl --\n", "debug": true, "debugNew": false
        }))
        .expect("valid");
        assert_eq!(input.source, Source::Inline);
        assert!(input.debug);
        assert!(input.check().is_ok());
    }

    #[test]
    fn unknown_fields_are_named() {
        let err = decode(serde_json::json!({"hcl": "x", "hlc": "y"})).expect_err("unknown");
        assert!(
            err.starts_with("unknown field \"hlc\" in HclInput, did you mean \"hcl\"?"),
            "{err}"
        );
        let err = decode(serde_json::json!({"DebugNew": true})).expect_err("case");
        assert!(err.contains("did you mean \"debugNew\"?"), "{err}");
        let err = decode(serde_json::json!({"program": "x"})).expect_err("unknown");
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn wrong_types_are_named() {
        let err = decode(serde_json::json!({"debug": "yes"})).expect_err("type");
        assert_eq!(err, "field \"debug\" must be a boolean, got string");
        let err = decode(serde_json::json!({"hcl": 3})).expect_err("type");
        assert_eq!(err, "field \"hcl\" must be a string, got number");
        let err = decode(serde_json::json!({"source": "Git"})).expect_err("enum");
        assert!(err.contains("\"Git\""), "{err}");
    }

    #[test]
    fn field_list_in_messages_matches_the_names() {
        assert_eq!(FIELDS, FIELD_NAMES.join(", "));
    }

    #[test]
    fn missing_hcl_is_reported() {
        let input = HclInput::decode(None).expect("empty");
        assert_eq!(
            input.check().expect_err("empty"),
            "input HCL was not specified"
        );
    }

    #[test]
    fn filesystem_needs_a_path_and_no_hcl() {
        let input = decode(serde_json::json!({"source": "FileSystem"})).expect("decodes");
        assert!(input.check().expect_err("no path").contains("\"path\""));
        let input = decode(serde_json::json!({"source": "FileSystem", "path": "/x", "hcl": "y"}))
            .expect("decodes");
        assert!(
            input
                .check()
                .expect_err("both")
                .contains("mutually exclusive")
        );
        let input =
            decode(serde_json::json!({"source": "FileSystem", "path": "/x"})).expect("decodes");
        assert!(input.check().is_ok());
    }

    #[test]
    fn schema_validation_policy() {
        let input = decode(serde_json::json!({"hcl": "x"})).expect("valid");
        assert_eq!(input.schema_validation, SchemaValidation::Warn);
        for (text, want) in [
            ("Off", SchemaValidation::Off),
            ("Warn", SchemaValidation::Warn),
            ("Fatal", SchemaValidation::Fatal),
        ] {
            let input =
                decode(serde_json::json!({"hcl": "x", "schemaValidation": text})).expect("valid");
            assert_eq!(input.schema_validation, want);
        }
        for (v, want) in [
            (false, SchemaValidation::Off),
            (true, SchemaValidation::Warn),
        ] {
            let input =
                decode(serde_json::json!({"hcl": "x", "schemaValidation": v})).expect("valid");
            assert_eq!(input.schema_validation, want, "{v}");
        }
        let err = decode(serde_json::json!({"schemaValidation": "Strict"})).expect_err("enum");
        assert!(err.contains("\"Strict\""), "{err}");
        let err = decode(serde_json::json!({"schemaValidaton": "Off"})).expect_err("typo");
        assert!(err.contains("did you mean \"schemaValidation\""), "{err}");
    }

    #[test]
    fn readiness_fields() {
        let input = decode(serde_json::json!({"hcl": "x"})).expect("valid");
        assert!(input.readiness_gating);
        assert!(!input.auto_ready);
        for (v, want) in [
            (serde_json::json!("On"), true),
            (serde_json::json!("Off"), false),
            (serde_json::json!(false), false),
            (serde_json::json!(true), true),
        ] {
            let input =
                decode(serde_json::json!({"hcl": "x", "readinessGating": v})).expect("valid");
            assert_eq!(input.readiness_gating, want, "{v}");
        }
        let err = decode(serde_json::json!({"readinessGating": "off"})).expect_err("bad value");
        assert_eq!(
            err,
            "field \"readinessGating\" must be \"On\" or \"Off\", got \"off\""
        );
        let input = decode(serde_json::json!({"hcl": "x", "autoReady": true})).expect("valid");
        assert!(input.auto_ready);
        let err = decode(serde_json::json!({"autoReady": "yes"})).expect_err("bad type");
        assert_eq!(err, "field \"autoReady\" must be a boolean, got string");
        let err = decode(serde_json::json!({"autoready": true})).expect_err("unknown");
        assert!(err.contains("did you mean \"autoReady\"?"), "{err}");
    }

    #[test]
    fn connection_secret_switch() {
        let input = decode(serde_json::json!({"hcl": "x"})).expect("valid");
        assert!(input.connection_secret);
        for (v, want) in [
            (serde_json::json!("On"), true),
            (serde_json::json!("Off"), false),
            (serde_json::json!(false), false),
            (serde_json::json!(""), true),
        ] {
            let input =
                decode(serde_json::json!({"hcl": "x", "connectionSecret": v})).expect("valid");
            assert_eq!(input.connection_secret, want, "{v}");
        }
        let err = decode(serde_json::json!({"connectionSecret": 1})).expect_err("bad type");
        assert_eq!(
            err,
            "field \"connectionSecret\" must be \"On\" or \"Off\", got number"
        );
    }

    #[test]
    fn ttl_override() {
        let input = decode(serde_json::json!({"hcl": "x", "ttl": "1m30s"})).expect("valid");
        assert_eq!(input.ttl, Some(Duration::from_secs(90)));
        assert!(decode(serde_json::json!({"ttl": "soon"})).is_err());
        assert_eq!(parse_go_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_go_duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_go_duration("0"), Some(Duration::ZERO));
        assert_eq!(parse_go_duration("10"), None);
        assert_eq!(parse_go_duration("-1s"), None);
    }
}
