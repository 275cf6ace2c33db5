//! Iteration helpers with cty's `ElementIterator` semantics.

use crate::{Number, Value};

impl Value {
    /// cty's `ElementIterator` as `(key, element)` pairs, in cty order:
    /// lists and tuples give `(index, element)`, sets give
    /// `(element, element)` (cty's set key is the element itself), maps and
    /// objects give `(key as string, element)` in lexical key order.
    /// `None` for other values, nulls and unknowns. A top-level mark is
    /// ignored (callers re-apply it).
    pub fn element_pairs(&self) -> Option<Vec<(Value, Value)>> {
        let index = |i: usize| Value::Number(Number::from_u64(i as u64));
        match self.unmarked() {
            Value::List(c) => Some(
                c.items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (index(i), v.clone()))
                    .collect(),
            ),
            Value::Tuple(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (index(i), v.clone()))
                    .collect(),
            ),
            Value::Set(c) => Some(c.items.iter().map(|v| (v.clone(), v.clone())).collect()),
            Value::Map(m) => Some(
                m.items
                    .iter()
                    .map(|(k, v)| (Value::String(k.clone()), v.clone()))
                    .collect(),
            ),
            Value::Object(attrs) => Some(
                attrs
                    .iter()
                    .map(|(k, v)| (Value::String(k.clone()), v.clone()))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// Number of elements of a list, set, tuple or map, or attributes of an
    /// object (cty `LengthInt`); `None` for other values, nulls and
    /// unknowns.
    pub fn length_int(&self) -> Option<usize> {
        match self.unmarked() {
            Value::List(c) | Value::Set(c) => Some(c.items.len()),
            Value::Tuple(items) => Some(items.len()),
            Value::Map(m) => Some(m.items.len()),
            Value::Object(attrs) => Some(attrs.len()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Type, Value, from_json_text};

    #[test]
    fn element_pairs_follow_cty() {
        let t = from_json_text(r#"["a", "b"]"#).expect("json");
        assert_eq!(
            t.element_pairs(),
            Some(vec![
                (Value::int(0), Value::string("a")),
                (Value::int(1), Value::string("b"))
            ])
        );
        let o = from_json_text(r#"{"z": 1, "a": 2}"#).expect("json");
        assert_eq!(
            o.element_pairs(),
            Some(vec![
                (Value::string("a"), Value::int(2)),
                (Value::string("z"), Value::int(1))
            ])
        );
        let s = Value::set_from(Type::String, vec![Value::string("y"), Value::string("x")]);
        assert_eq!(
            s.element_pairs(),
            Some(vec![
                (Value::string("x"), Value::string("x")),
                (Value::string("y"), Value::string("y"))
            ])
        );
        assert_eq!(s.length_int(), Some(2));
        assert_eq!(Value::string("x").element_pairs(), None);
        assert_eq!(Value::Unknown(Type::list(Type::String)).length_int(), None);
        assert_eq!(o.mark().length_int(), Some(2));
    }
}
