//! protobuf `Struct` <-> [`Value`] conversion, without a JSON round trip.
//!
//! Request data arrives as cty would see it after Go's `encoding/json` and
//! cty's implied-type decoding (upstream §3.2): objects become objects,
//! lists become tuples, numbers are the shortest decimal text of the
//! float64 read back as a cty number. Output goes the other way: objects and
//! maps become `Struct`s, lists/sets/tuples become lists, numbers float64.

use fnhcl_value::{Key, Number, ObjMap, Value};
use pbjson_types::value::Kind;
use pbjson_types::{ListValue, Struct, Value as PbValue};

/// Nesting deeper than this is rejected (protobuf itself limits decoding to
/// 100 levels; values built by the evaluator are bounded the same way).
pub const MAX_DEPTH: usize = 200;

/// An output value could not be expressed as protobuf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConvertError {
    /// The value (at the given dotted path) is not known yet.
    Unknown(String),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A top-level value that must be an object was something else.
    NotAnObject(&'static str),
    /// A number (at the given dotted path) that is infinite, or too large
    /// for a float64: JSON, which Crossplane writes desired state as, has
    /// no such number (cty's JSON conversion refuses it too).
    NotFinite(String, bool),
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertError::Unknown(path) if path.is_empty() => f.write_str("value is not known yet"),
            ConvertError::Unknown(path) => write!(f, "value at {path} is not known yet"),
            ConvertError::TooDeep => write!(f, "value is nested deeper than {MAX_DEPTH} levels"),
            ConvertError::NotAnObject(got) => write!(f, "expected an object, got {got}"),
            ConvertError::NotFinite(path, negative) => {
                let sign = if *negative { "-" } else { "+" };
                if path.is_empty() {
                    write!(
                        f,
                        "the number is {sign}Inf or beyond a float64, which JSON cannot hold"
                    )
                } else {
                    write!(
                        f,
                        "the number at {path} is {sign}Inf or beyond a float64, which JSON cannot hold"
                    )
                }
            }
        }
    }
}

impl std::error::Error for ConvertError {}

/// A float64 as cty reads it from JSON: the shortest decimal that
/// round-trips, parsed as a cty number. Integers take a fast path.
pub fn number_from_f64(f: f64) -> Option<Number> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(Number::infinity(f < 0.0));
    }
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        return Some(Number::from_i64(f as i64));
    }
    // Rust's `Display` for f64 prints the shortest round-tripping decimal.
    Number::parse(&format!("{f}"))
}

/// A protobuf value as a cty value. NaN (not representable in JSON, so never
/// sent by Crossplane) becomes null.
pub fn value_from_pb(v: &PbValue) -> Value {
    value_from_pb_depth(v, 0)
}

pub(crate) fn value_from_pb_depth(v: &PbValue, depth: usize) -> Value {
    value_from_pb_within(v, depth, usize::MAX).unwrap_or_else(|TooDeep| Value::null())
}

/// Request data nested deeper than the caller's limit.
#[derive(Debug)]
pub(crate) struct TooDeep;

/// Whether an object or list at conversion depth `depth` is over the
/// limit `max`: [`crate::request::too_deep`] counts a `Struct`'s values
/// from 1 where the conversion counts from 0.
fn over(depth: usize, max: usize) -> bool {
    depth.saturating_add(1) >= max
}

/// [`value_from_pb_depth`], failing on an object or list nested `max`
/// levels deep (where [`crate::request::too_deep`] says too deep), in the
/// same walk.
pub(crate) fn value_from_pb_within(
    v: &PbValue,
    depth: usize,
    max: usize,
) -> Result<Value, TooDeep> {
    Ok(match &v.kind {
        None | Some(Kind::NullValue(_)) => Value::null(),
        Some(Kind::BoolValue(b)) => Value::Bool(*b),
        Some(Kind::NumberValue(f)) => match number_from_f64(*f) {
            Some(n) => Value::Number(n),
            None => Value::null(),
        },
        Some(Kind::StringValue(s)) => Value::string(fnhcl_value::nfc(s)),
        Some(Kind::StructValue(s)) => {
            if over(depth, max) {
                return Err(TooDeep);
            }
            if depth >= MAX_DEPTH {
                return Ok(Value::null());
            }
            object_from_struct_within(s, depth + 1, max)?
        }
        Some(Kind::ListValue(l)) => {
            if over(depth, max) {
                return Err(TooDeep);
            }
            if depth >= MAX_DEPTH {
                return Ok(Value::null());
            }
            let mut items = Vec::with_capacity(l.values.len());
            for v in &l.values {
                items.push(value_from_pb_within(v, depth + 1, max)?);
            }
            Value::tuple(items)
        }
    })
}

/// A protobuf `Struct` as a cty object.
pub fn object_from_struct(s: &Struct) -> Value {
    object_from_struct_depth(s, 0)
}

pub(crate) fn object_from_struct_depth(s: &Struct, depth: usize) -> Value {
    object_from_struct_within(s, depth, usize::MAX).unwrap_or_else(|TooDeep| Value::null())
}

/// [`object_from_struct_depth`] with the limit of [`value_from_pb_within`].
pub(crate) fn object_from_struct_within(
    s: &Struct,
    depth: usize,
    max: usize,
) -> Result<Value, TooDeep> {
    // The `Struct` is a HashMap: `collect` sorts the fields once.
    let mut entries = Vec::with_capacity(s.fields.len());
    for (k, v) in &s.fields {
        entries.push((Key::from(k.as_str()), value_from_pb_within(v, depth, max)?));
    }
    let attrs: ObjMap = entries.into_iter().collect();
    Ok(Value::Object(attrs))
}

/// A cty value as a protobuf value. Marks are dropped; unknown values are
/// an error (the evaluator never emits them).
pub fn value_to_pb(v: &Value) -> Result<PbValue, ConvertError> {
    to_pb(v, 0, false).map_err(PathError::finish)
}

/// [`value_to_pb`] for showing (debug dumps): every value carrying the
/// sensitive mark becomes the string `(sensitive value)` (D38).
pub fn value_to_pb_shown(v: &Value) -> Result<PbValue, ConvertError> {
    to_pb(v, 0, true).map_err(PathError::finish)
}

/// [`value_to_struct`] as [`value_to_pb_shown`] shows it.
pub fn value_to_struct_shown(v: &Value) -> Result<Struct, ConvertError> {
    match value_to_pb_shown(v)?.kind {
        Some(Kind::StructValue(s)) => Ok(s),
        _ => Err(ConvertError::NotAnObject(type_word(v))),
    }
}

/// What is shown in place of a sensitive value.
pub const SENSITIVE: &str = "(sensitive value)";

/// A cty object or map as a protobuf `Struct`.
pub fn value_to_struct(v: &Value) -> Result<Struct, ConvertError> {
    match value_to_pb(v)?.kind {
        Some(Kind::StructValue(s)) => Ok(s),
        _ => Err(ConvertError::NotAnObject(type_word(v))),
    }
}

fn type_word(v: &Value) -> &'static str {
    match v.unmarked() {
        Value::Null(_) => "null",
        Value::Unknown(_) => "an unknown value",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "list",
        Value::Set(_) => "set",
        Value::Map(_) => "map",
        Value::Tuple(_) => "tuple",
        Value::Object(_) => "object",
        Value::Marked(_) => "sensitive value",
    }
}

/// A conversion error on its way up: the path is collected innermost
/// first, only when there is an error (no allocation on success).
struct PathError {
    error: ConvertError,
    rev_path: Vec<String>,
}

impl PathError {
    fn new(error: ConvertError) -> PathError {
        PathError {
            error,
            rev_path: Vec::new(),
        }
    }

    fn at(mut self, step: impl ToString) -> PathError {
        self.rev_path.push(step.to_string());
        self
    }

    fn finish(mut self) -> ConvertError {
        if let ConvertError::Unknown(p) | ConvertError::NotFinite(p, _) = &mut self.error {
            self.rev_path.reverse();
            *p = self.rev_path.join(".");
        }
        self.error
    }
}

fn to_pb(v: &Value, depth: usize, redact: bool) -> Result<PbValue, PathError> {
    if depth > MAX_DEPTH {
        return Err(PathError::new(ConvertError::TooDeep));
    }
    let kind = match v {
        Value::Marked(_) if redact => Kind::StringValue(SENSITIVE.to_owned()),
        Value::Marked(inner) => return to_pb(inner, depth, redact),
        Value::Null(_) => Kind::NullValue(0),
        Value::Unknown(_) => return Err(PathError::new(ConvertError::Unknown(String::new()))),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::Number(n) => {
            let f = n.to_f64();
            if !f.is_finite() {
                let negative = f.is_sign_negative();
                return Err(PathError::new(ConvertError::NotFinite(
                    String::new(),
                    negative,
                )));
            }
            Kind::NumberValue(f)
        }
        Value::String(s) => Kind::StringValue(String::from(&**s)),
        Value::List(c) | Value::Set(c) => Kind::ListValue(seq_to_pb(&c.items, depth, redact)?),
        Value::Tuple(items) => Kind::ListValue(seq_to_pb(items, depth, redact)?),
        Value::Map(m) => Kind::StructValue(entries_to_pb(&m.items, depth, redact)?),
        Value::Object(attrs) => Kind::StructValue(entries_to_pb(attrs, depth, redact)?),
    };
    Ok(PbValue { kind: Some(kind) })
}

fn seq_to_pb(items: &[Value], depth: usize, redact: bool) -> Result<ListValue, PathError> {
    let mut values = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        values.push(to_pb(item, depth + 1, redact).map_err(|e| e.at(i))?);
    }
    Ok(ListValue { values })
}

fn entries_to_pb(entries: &ObjMap, depth: usize, redact: bool) -> Result<Struct, PathError> {
    let mut fields = std::collections::HashMap::with_capacity(entries.len());
    for (k, item) in entries {
        let v = to_pb(item, depth + 1, redact).map_err(|e| e.at(k))?;
        fields.insert(String::from(&**k), v);
    }
    Ok(Struct { fields })
}

/// A protobuf value as JSON (for debug output and YAML printing).
pub fn pb_to_json(v: &PbValue) -> serde_json::Value {
    pb_to_json_depth(v, 0)
}

fn pb_to_json_depth(v: &PbValue, depth: usize) -> serde_json::Value {
    match &v.kind {
        None | Some(Kind::NullValue(_)) => serde_json::Value::Null,
        Some(Kind::BoolValue(b)) => serde_json::Value::Bool(*b),
        Some(Kind::NumberValue(f)) => json_number(*f),
        Some(Kind::StringValue(s)) => serde_json::Value::String(s.clone()),
        Some(Kind::StructValue(s)) if depth < MAX_DEPTH => struct_to_json_depth(s, depth + 1),
        Some(Kind::ListValue(l)) if depth < MAX_DEPTH => serde_json::Value::Array(
            l.values
                .iter()
                .map(|v| pb_to_json_depth(v, depth + 1))
                .collect(),
        ),
        Some(_) => serde_json::Value::Null,
    }
}

/// A float64 as JSON: integral values as integers (as Go's encoding/json
/// prints them), others as floats; NaN/inf as null.
pub fn json_number(f: f64) -> serde_json::Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        serde_json::Value::Number((f as i64).into())
    } else {
        serde_json::Number::from_f64(f)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null)
    }
}

/// A protobuf `Struct` as a JSON object.
pub fn struct_to_json(s: &Struct) -> serde_json::Value {
    struct_to_json_depth(s, 0)
}

fn struct_to_json_depth(s: &Struct, depth: usize) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = s
        .fields
        .iter()
        .map(|(k, v)| (k.clone(), pb_to_json_depth(v, depth)))
        .collect();
    serde_json::Value::Object(map)
}

/// JSON as a protobuf value (numbers become float64).
pub fn json_to_pb(v: &serde_json::Value) -> PbValue {
    json_to_pb_depth(v, 0)
}

fn json_to_pb_depth(v: &serde_json::Value, depth: usize) -> PbValue {
    let kind = match v {
        serde_json::Value::Null => Kind::NullValue(0),
        serde_json::Value::Bool(b) => Kind::BoolValue(*b),
        serde_json::Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Kind::StringValue(s.clone()),
        serde_json::Value::Array(a) if depth < MAX_DEPTH => Kind::ListValue(ListValue {
            values: a.iter().map(|v| json_to_pb_depth(v, depth + 1)).collect(),
        }),
        serde_json::Value::Object(m) if depth < MAX_DEPTH => Kind::StructValue(Struct {
            fields: m
                .iter()
                .map(|(k, v)| (k.clone(), json_to_pb_depth(v, depth + 1)))
                .collect(),
        }),
        _ => Kind::NullValue(0),
    };
    PbValue { kind: Some(kind) }
}

/// A JSON object as a protobuf `Struct` (`None` if not an object).
pub fn json_to_struct(v: &serde_json::Value) -> Option<Struct> {
    match json_to_pb(v).kind {
        Some(Kind::StructValue(s)) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pb(v: serde_json::Value) -> PbValue {
        json_to_pb(&v)
    }

    #[test]
    fn request_values_are_objects_and_tuples() {
        let v = value_from_pb(&pb(
            serde_json::json!({"a": [1, "x", true, null], "b": {"c": 1.5}}),
        ));
        let attrs = v.as_entries().expect("object");
        assert!(matches!(v, Value::Object(_)));
        assert!(matches!(attrs["a"], Value::Tuple(_)));
        let items = attrs["a"].as_seq().expect("tuple");
        assert_eq!(items[0], Value::int(1));
        assert_eq!(items[1], Value::string("x"));
        assert_eq!(items[2], Value::Bool(true));
        assert!(items[3].is_null());
        let c = attrs["b"].as_entries().expect("object")["c"].clone();
        assert_eq!(c, Value::Number(Number::parse("1.5").expect("number")));
    }

    #[test]
    fn request_strings_are_nfc_normalised() {
        let v = value_from_pb(&pb(serde_json::json!("cafe\u{301}")));
        assert_eq!(v, Value::string("caf\u{e9}"));
    }

    #[test]
    fn decimal_floats_read_as_their_shortest_text() {
        assert_eq!(
            number_from_f64(0.1).expect("number"),
            Number::parse("0.1").expect("number")
        );
        assert_eq!(number_from_f64(-3.0).expect("number"), Number::from_i64(-3));
        assert!(number_from_f64(f64::NAN).is_none());
        assert!(number_from_f64(f64::INFINITY).expect("inf").is_infinite());
    }

    #[test]
    fn round_trip_through_values() {
        let json = serde_json::json!({"a": [1, "x", true, null, {"n": 2.25}], "b": {}});
        let s = json_to_struct(&json).expect("object");
        let v = object_from_struct(&s);
        let back = value_to_struct(&v).expect("convertible");
        assert_eq!(struct_to_json(&back), json);
    }

    #[test]
    fn unknown_output_is_an_error_with_its_path() {
        let mut attrs = ObjMap::new();
        attrs.insert(
            Key::from("spec"),
            Value::tuple(vec![Value::int(1), Value::dynamic_unknown()]),
        );
        let err = value_to_struct(&Value::object(attrs)).expect_err("unknown");
        assert_eq!(err, ConvertError::Unknown("spec.1".to_owned()));
        assert_eq!(err.to_string(), "value at spec.1 is not known yet");
    }

    #[test]
    fn non_objects_are_not_structs() {
        let err = value_to_struct(&Value::string("x")).expect_err("string");
        assert_eq!(err.to_string(), "expected an object, got string");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut v = Value::int(1);
        for _ in 0..(MAX_DEPTH + 5) {
            v = Value::tuple(vec![v]);
        }
        assert_eq!(value_to_pb(&v).expect_err("deep"), ConvertError::TooDeep);
    }
}
