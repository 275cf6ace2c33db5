//! The outermost kind of a value's type, read without computing the type
//! of the whole value.
//!
//! `Value::type_of` of a tuple or object builds the type of every element,
//! recursively: on a 20 KB object that is thousands of allocations. Most
//! built-ins only need the outer kind (is it a map or an object? how many
//! attributes?) or the type of one element: [`shape`] answers those in
//! constant time, the same answers `type_of` would give.

use crate::{ObjMap, Type, Value};

/// Object attributes: from a value (known object) or from a type (an
/// unknown or null of object type).
pub enum Attrs<'a> {
    Value(&'a ObjMap),
    Type(&'a std::collections::BTreeMap<std::sync::Arc<str>, Type>),
}

impl Attrs<'_> {
    pub fn len(&self) -> usize {
        match self {
            Attrs::Value(m) => m.len(),
            Attrs::Type(t) => t.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The type of attribute `key`, as `type_of` of the object would
    /// have it.
    pub fn type_of(&self, key: &str) -> Option<Type> {
        match self {
            Attrs::Value(m) => m.get(key).map(Value::type_of),
            Attrs::Type(t) => t.get(key).cloned(),
        }
    }

    /// The attribute names, in order (the same order for both sources:
    /// byte order of the names).
    pub fn names(&self) -> Vec<Value> {
        match self {
            Attrs::Value(m) => m.keys().map(|k| Value::String(k.clone())).collect(),
            Attrs::Type(t) => t.keys().map(|k| Value::String(k.clone())).collect(),
        }
    }
}

/// The outer kind of `type_of(v)` (marks looked through).
pub enum Shape<'a> {
    Dynamic,
    Bool,
    Number,
    String,
    List(&'a Type),
    Set(&'a Type),
    Map(&'a Type),
    /// A tuple, with its number of elements.
    Tuple(usize),
    Object(Attrs<'a>),
}

/// The outer kind of `v`'s type (see the module docs).
pub fn shape(v: &Value) -> Shape<'_> {
    match v.unmarked() {
        Value::Null(t) | Value::Unknown(t) => match t {
            Type::Dynamic => Shape::Dynamic,
            Type::Bool => Shape::Bool,
            Type::Number => Shape::Number,
            Type::String => Shape::String,
            Type::List(e) => Shape::List(e),
            Type::Set(e) => Shape::Set(e),
            Type::Map(e) => Shape::Map(e),
            Type::Tuple(es) => Shape::Tuple(es.len()),
            Type::Object(attrs) => Shape::Object(Attrs::Type(attrs)),
        },
        Value::Bool(_) => Shape::Bool,
        Value::Number(_) => Shape::Number,
        Value::String(_) => Shape::String,
        Value::List(c) => Shape::List(&c.elem),
        Value::Set(c) => Shape::Set(&c.elem),
        Value::Map(m) => Shape::Map(&m.elem),
        Value::Tuple(items) => Shape::Tuple(items.len()),
        Value::Object(attrs) => Shape::Object(Attrs::Value(attrs)),
        // `unmarked` looks through every mark.
        Value::Marked(_) => Shape::Dynamic,
    }
}

#[cfg(test)]
mod tests {
    use crate::{Key, Type, Value};

    use super::{Shape, shape};

    /// The shape agrees with `type_of` on every kind of value.
    #[test]
    fn shape_agrees_with_type_of() {
        let obj = Value::object(
            [
                (Key::from("b"), Value::int(1)),
                (Key::from("a"), Value::tuple(vec![Value::TRUE])),
            ]
            .into_iter()
            .collect(),
        );
        let values = vec![
            Value::null(),
            Value::Unknown(Type::Dynamic),
            Value::TRUE,
            Value::int(3),
            Value::string("x"),
            Value::list(Type::Number, vec![Value::int(1)]),
            Value::tuple(vec![Value::int(1), Value::string("y")]),
            obj.clone(),
            obj.clone().mark(),
            Value::Unknown(obj.type_of()),
            Value::Null(Type::map(Type::String)),
        ];
        for v in values {
            let t = v.type_of();
            let ok = match (shape(&v), &t) {
                (Shape::Dynamic, Type::Dynamic)
                | (Shape::Bool, Type::Bool)
                | (Shape::Number, Type::Number)
                | (Shape::String, Type::String) => true,
                (Shape::List(e), Type::List(te))
                | (Shape::Set(e), Type::Set(te))
                | (Shape::Map(e), Type::Map(te)) => e == &**te,
                (Shape::Tuple(n), Type::Tuple(es)) => n == es.len(),
                (Shape::Object(a), Type::Object(at)) => {
                    a.len() == at.len()
                        && at.iter().all(|(k, t)| a.type_of(k).as_ref() == Some(t))
                        && a.names()
                            == at
                                .keys()
                                .map(|k| Value::String(k.clone()))
                                .collect::<Vec<_>>()
                }
                _ => false,
            };
            assert!(ok, "{v:?}: {t}");
        }
    }
}
