//! Bad schemas and bad bodies never panic, hang or run out of stack:
//! limits turn them into errors (or one violation).

use std::sync::Arc;

use fnhcl_schema::{MAX_NODES, PathSegment, Schema, SchemaSet, ViolationKind};
use fnhcl_value::Value;
use serde_json::{Value as Json, json};

#[test]
fn deeply_nested_yaml_is_an_error() {
    for depth in [300, 100_000] {
        let text = "[".repeat(depth) + &"]".repeat(depth);
        let e = SchemaSet::default()
            .load_text("deep.yaml", &text)
            .unwrap_err();
        assert!(e.to_string().starts_with("deep.yaml: line "), "{e}");
        let text = "a:\n".to_owned()
            + &(1..depth.min(3_000))
                .map(|i| format!("{}a:\n", " ".repeat(i)))
                .collect::<String>();
        assert!(SchemaSet::default().load_text("deep.yaml", &text).is_err());
    }
}

#[test]
fn deeply_nested_json_is_an_error() {
    let text = "{\"a\":".repeat(10_000) + "1" + &"}".repeat(10_000);
    let e = SchemaSet::default()
        .load_text("deep.json", &text)
        .unwrap_err();
    assert!(e.to_string().contains("invalid JSON"), "{e}");
}

#[test]
fn too_many_nodes_is_an_error() {
    let props: serde_json::Map<String, Json> = (0..MAX_NODES + 1)
        .map(|i| (format!("p{i}"), json!({})))
        .collect();
    let e = Schema::compile(&json!({"type": "object", "properties": props})).unwrap_err();
    assert!(e.message.contains("more than"), "{e}");
}

#[test]
fn deep_values_are_reported_once_not_overflowed() {
    let schema = Schema::compile(&json!({
        "$ref": "#/$defs/Node",
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
    }))
    .unwrap();
    let mut v = Value::empty_object();
    for _ in 0..1_000 {
        let mut m = fnhcl_value::ObjMap::new();
        m.insert(Arc::from("next"), v);
        v = Value::object(m);
    }
    // On a small stack (the server's blocking threads have 2 MiB).
    let violations = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn_scoped(s, || schema.validate(&v))
            .unwrap()
            .join()
            .unwrap()
    });
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert_eq!(violations[0].kind, ViolationKind::Other);
    assert!(violations[0].message.contains("nested deeper"));
    // The path is whole past the segments kept in place.
    let path = &violations[0].path;
    assert!(path.len() > 100, "{}", path.len());
    assert!(path.iter().all(|s| *s == PathSegment::Key("next".into())));
}

/// A small deterministic generator of schema-like JSON (keywords with
/// values of every type), to check that compiling never panics and that
/// validation of generated values is deterministic.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.next() as usize) % xs.len()]
    }
    fn scalar(&mut self) -> Json {
        match self.next() % 7 {
            0 => Json::Null,
            1 => json!(true),
            2 => json!(self.next() % 5),
            3 => json!(-1.5),
            4 => json!(*self.pick(&["a", "object", "string", "^[a-z]+$", "(", "#/$defs/X"])),
            5 => json!([]),
            _ => json!({}),
        }
    }
    fn schema(&mut self, depth: usize) -> Json {
        let keys = [
            "type",
            "properties",
            "items",
            "additionalProperties",
            "required",
            "enum",
            "pattern",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "multipleOf",
            "minLength",
            "maxItems",
            "nullable",
            "allOf",
            "anyOf",
            "oneOf",
            "$ref",
            "format",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-int-or-string",
            "x-kubernetes-embedded-resource",
            "x-kubernetes-list-type",
            "x-kubernetes-list-map-keys",
            "uniqueItems",
        ];
        let mut m = serde_json::Map::new();
        for _ in 0..(self.next() % 4) {
            let k = *self.pick(&keys);
            let v = match (k, depth < 4, self.next() % 3) {
                ("type", _, 0) => json!(
                    *self.pick(&["object", "array", "string", "integer", "number", "boolean"])
                ),
                ("properties", true, _) => {
                    json!({"a": self.schema(depth + 1), "b": self.schema(depth + 1)})
                }
                ("items" | "additionalProperties", true, _) => self.schema(depth + 1),
                ("allOf" | "anyOf" | "oneOf", true, _) => {
                    json!([self.schema(depth + 1), self.schema(depth + 1)])
                }
                ("$ref", _, _) => json!(*self.pick(&["#/$defs/X", "#/$defs/Y", "#/nowhere", "#"])),
                ("required", _, 0) => json!(["a"]),
                ("x-kubernetes-list-type", _, 0) => json!(*self.pick(&["set", "map", "atomic"])),
                ("x-kubernetes-list-map-keys", _, 0) => json!(["a", "b"]),
                _ => self.scalar(),
            };
            m.insert(k.to_owned(), v);
        }
        Json::Object(m)
    }
    fn value(&mut self, depth: usize) -> Value {
        match (self.next() % 8, depth < 4) {
            (0, _) => Value::null(),
            (1, _) => Value::Bool(true),
            (2, _) => Value::int(self.next() as i64 % 7 - 2),
            (3, _) => Value::string(*self.pick(&["a", "abc", "ABC", "2024-01-01T00:00:00Z", ""])),
            (4, _) => Value::dynamic_unknown(),
            (5, true) => Value::tuple(vec![self.value(depth + 1), self.value(depth + 1)]),
            (6 | 7, true) => {
                let mut m = fnhcl_value::ObjMap::new();
                for k in ["a", "b", "c"] {
                    if self.next().is_multiple_of(2) {
                        m.insert(Arc::from(k), self.value(depth + 1));
                    }
                }
                Value::object(m)
            }
            _ => Value::string("x"),
        }
    }
}

#[test]
fn generated_schemas_never_panic() {
    let mut g = Gen(7);
    let mut compiled = 0;
    for _ in 0..3_000 {
        let mut root = g.schema(0);
        if let Json::Object(m) = &mut root {
            m.insert(
                "$defs".to_owned(),
                json!({"X": g.schema(1), "Y": {"$ref": "#/$defs/X"}}),
            );
        }
        let Ok(schema) = Schema::compile(&root) else {
            continue;
        };
        compiled += 1;
        for _ in 0..5 {
            let v = g.value(0);
            let first = schema.validate(&v);
            assert_eq!(first, schema.validate(&v));
            let _ = schema.field(&["a", "b", "0"]).map(|f| f.type_name());
        }
    }
    assert!(compiled > 500, "only {compiled} generated schemas compiled");
}

#[test]
fn every_loaded_crd_is_send_sync_and_shared() {
    let text = include_str!("data/crds/s3.aws.upbound.io_buckets.yaml");
    let mut set = SchemaSet::default();
    assert_eq!(set.load_text("s3.yaml", text).unwrap(), 2);
    let copy = set.clone();
    let a = set.get("s3.aws.upbound.io/v1beta2", "Bucket").unwrap();
    let b = copy.get("s3.aws.upbound.io/v1beta2", "Bucket").unwrap();
    assert!(Arc::ptr_eq(a, b));
    let handle = std::thread::spawn(move || copy.kinds().count());
    assert_eq!(handle.join().unwrap(), 2);
}

#[test]
fn a_failed_load_changes_nothing() {
    let mut set = SchemaSet::default();
    let text = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: a.x}\nspec:\n  group: x\n  names: {kind: A}\n  versions: [{name: v1, served: true, schema: {openAPIV3Schema: {type: object}}}]\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: b.x}\nspec:\n  group: x\n  names: {kind: B}\n  versions: [{name: v1, served: true}]\n";
    assert!(set.load_text("two.yaml", text).is_err());
    assert!(set.is_empty());
}

#[test]
fn a_set_validates_a_body_by_its_own_kind() {
    let text = include_str!("data/crds/iam.aws.upbound.io_roles.yaml");
    let mut set = SchemaSet::default();
    set.load_text("roles.yaml", text).unwrap();
    let body = json!({
        "apiVersion": "iam.aws.upbound.io/v1beta1",
        "kind": "Role",
        "spec": {"forProvider": {"path": 1}}
    });
    let value = fnhcl_value::from_serde_json(&body);
    let violations = set.validate(&value).unwrap();
    assert_eq!(
        violations
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["spec.forProvider.path: expected string, got integer"]
    );
    let schema = set.get("iam.aws.upbound.io/v1beta1", "Role").unwrap();
    assert_eq!(schema.validate_json(&body), violations);
    let other = fnhcl_value::from_serde_json(&json!({"apiVersion": "v1", "kind": "Role"}));
    assert!(set.validate(&other).is_none());
    assert!(set.validate(&Value::dynamic_unknown()).is_none());
}

#[test]
fn diamonds_of_all_of_are_visited_once_per_part() {
    let mut defs = serde_json::Map::new();
    for i in 0..60 {
        let next = format!("#/$defs/L{}", i + 1);
        defs.insert(
            format!("L{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}], "properties": {format!("p{i}"): {"type": "integer"}}}),
        );
    }
    defs.insert("L60".into(), json!({"type": "object"}));
    let schema = Schema::compile(&json!({"$ref": "#/$defs/L0", "$defs": defs})).unwrap();
    let v = fnhcl_value::from_serde_json(&json!({"p0": 1, "p59": "x", "q": 1}));
    let out: Vec<String> = schema
        .validate(&v)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        out,
        ["p59: expected integer, got string", "q: unknown field"]
    );
    assert_eq!(schema.field(&["p59"]).unwrap().type_name(), "integer");
}

#[test]
fn alternatives_that_multiply_the_work_stop_at_the_budget() {
    let branch = json!({"properties": {"next": {"$ref": "#/$defs/N"}}, "required": ["zzz"]});
    let schema = Schema::compile(&json!({"$ref": "#/$defs/N", "$defs": {"N": {
        "type": "object",
        "properties": {"next": {"$ref": "#/$defs/N"}, "zzz": {}},
        "anyOf": [branch, branch]
    }}}))
    .unwrap();
    let mut v = Value::empty_object();
    for _ in 0..30 {
        let mut m = fnhcl_value::ObjMap::new();
        m.insert(Arc::from("next"), v);
        v = Value::object(m);
    }
    let out = schema.validate(&v);
    assert!(
        out.iter()
            .any(|v| v.path.is_empty() && v.message.contains("too complex")),
        "{out:?}"
    );
}
