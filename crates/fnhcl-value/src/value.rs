use std::sync::Arc;

use crate::{Number, ObjMap, Type};

/// Object attribute names and map keys. Shared, cheap to clone.
pub type Key = Arc<str>;

/// cty normalizes every string to Unicode NFC. Most strings already are
/// (all ASCII ones), so this borrows unless the text changes.
pub fn nfc(s: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
    if s.is_ascii() || is_nfc_quick(s.chars()) == IsNormalized::Yes {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(s.nfc().collect())
    }
}

/// A cty value.
///
/// Containers are `Arc`-shared so cloning is cheap. Maps and objects are
/// [`ObjMap`]s (sorted vectors): cty iterates both in lexical key order. Sets hold their
/// elements deduplicated and in cty's set order: build them with
/// [`Value::set_from`], never by hand.
///
/// Marks: only Terraform's `sensitive` mark exists; a marked value is
/// wrapped in [`Value::Marked`]. Operations unmark their operands deeply
/// and mark the result if any operand was marked.
#[derive(Clone)]
pub enum Value {
    /// A null of the given type (`Type::Dynamic` for an untyped `null`).
    Null(Type),
    /// A value not known yet, of the given type (`Type::Dynamic` when even
    /// the type is not known).
    Unknown(Type),
    Bool(bool),
    Number(Number),
    String(Arc<str>),
    List(Arc<Collection>),
    Set(Arc<Collection>),
    Map(Arc<MapValue>),
    Tuple(Arc<Vec<Value>>),
    /// An object's attributes: one shared allocation (see [`ObjMap`]).
    Object(ObjMap),
    /// A value carrying the `sensitive` mark.
    Marked(Arc<Value>),
}

/// Elements of a list or set, with the element type (needed for empty
/// collections and for type checks).
#[derive(Clone)]
pub struct Collection {
    pub elem: Type,
    pub items: Vec<Value>,
}

/// Elements of a map, with the element type.
#[derive(Clone)]
pub struct MapValue {
    pub elem: Type,
    pub items: ObjMap,
}

impl Value {
    pub const TRUE: Value = Value::Bool(true);
    pub const FALSE: Value = Value::Bool(false);

    /// Untyped null (`null` literal).
    pub fn null() -> Value {
        Value::Null(Type::Dynamic)
    }
    /// Wholly unknown value of unknown type.
    pub fn dynamic_unknown() -> Value {
        Value::Unknown(Type::Dynamic)
    }
    pub fn string(s: impl Into<Arc<str>>) -> Value {
        Value::String(s.into())
    }
    pub fn number(n: Number) -> Value {
        Value::Number(n)
    }
    pub fn int(i: i64) -> Value {
        Value::Number(Number::from_i64(i))
    }
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Arc::new(items))
    }
    pub fn object(attrs: ObjMap) -> Value {
        Value::Object(attrs)
    }
    pub fn empty_object() -> Value {
        Value::Object(ObjMap::new())
    }
    /// A list with the given element type. The caller guarantees every item
    /// conforms to `elem` (use conversion helpers otherwise).
    pub fn list(elem: Type, items: Vec<Value>) -> Value {
        Value::List(Arc::new(Collection { elem, items }))
    }
    /// A map with the given element type.
    pub fn map(elem: Type, items: ObjMap) -> Value {
        Value::Map(Arc::new(MapValue { elem, items }))
    }

    /// The value's cty type.
    pub fn type_of(&self) -> Type {
        match self {
            Value::Null(t) | Value::Unknown(t) => t.clone(),
            Value::Bool(_) => Type::Bool,
            Value::Number(_) => Type::Number,
            Value::String(_) => Type::String,
            Value::List(c) => Type::list(c.elem.clone()),
            Value::Set(c) => Type::set(c.elem.clone()),
            Value::Map(m) => Type::map(m.elem.clone()),
            Value::Tuple(items) => Type::tuple(items.iter().map(Value::type_of).collect()),
            Value::Object(attrs) => Type::object(
                attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), v.type_of()))
                    .collect(),
            ),
            Value::Marked(v) => v.type_of(),
        }
    }

    /// True unless the value itself is unknown (its elements may be).
    pub fn is_known(&self) -> bool {
        match self {
            Value::Unknown(_) => false,
            Value::Marked(v) => v.is_known(),
            _ => true,
        }
    }

    /// True if neither the value nor anything inside it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        // An element that is a scalar (most are) is decided inline, without
        // a call per element.
        #[inline(always)]
        fn item(v: &Value) -> bool {
            match v {
                Value::Unknown(_) => false,
                Value::Null(_) | Value::Bool(_) | Value::Number(_) | Value::String(_) => true,
                _ => v.is_wholly_known(),
            }
        }
        match self {
            Value::Unknown(_) => false,
            Value::List(c) | Value::Set(c) => c.items.iter().all(item),
            Value::Map(m) => m.items.as_slice().iter().all(|(_, v)| item(v)),
            Value::Tuple(items) => items.iter().all(item),
            Value::Object(attrs) => attrs.as_slice().iter().all(|(_, v)| item(v)),
            Value::Marked(v) => v.is_wholly_known(),
            _ => true,
        }
    }

    /// True for a (typed or untyped) null. An unknown is not null.
    pub fn is_null(&self) -> bool {
        match self {
            Value::Null(_) => true,
            Value::Marked(v) => v.is_null(),
            _ => false,
        }
    }

    /// True if the value or anything inside it carries a mark.
    pub fn is_marked_deep(&self) -> bool {
        // Scalar elements are decided inline, as in `is_wholly_known`.
        #[inline(always)]
        fn item(v: &Value) -> bool {
            match v {
                Value::Marked(_) => true,
                Value::Null(_)
                | Value::Unknown(_)
                | Value::Bool(_)
                | Value::Number(_)
                | Value::String(_) => false,
                _ => v.is_marked_deep(),
            }
        }
        match self {
            Value::Marked(_) => true,
            Value::List(c) | Value::Set(c) => c.items.iter().any(item),
            Value::Map(m) => m.items.as_slice().iter().any(|(_, v)| item(v)),
            Value::Tuple(items) => items.iter().any(item),
            Value::Object(attrs) => attrs.as_slice().iter().any(|(_, v)| item(v)),
            _ => false,
        }
    }

    /// Removes the top-level mark, if any.
    pub fn unmarked(&self) -> &Value {
        match self {
            Value::Marked(v) => v.unmarked(),
            v => v,
        }
    }

    /// Removes every mark, at any depth. Returns the value and whether any
    /// mark was found.
    pub fn unmark_deep(&self) -> (Value, bool) {
        if !self.is_marked_deep() {
            return (self.clone(), false);
        }
        fn strip(v: &Value) -> Value {
            match v {
                Value::Marked(inner) => strip(inner),
                Value::List(c) => Value::List(Arc::new(Collection {
                    elem: c.elem.clone(),
                    items: c.items.iter().map(strip).collect(),
                })),
                Value::Set(c) => Value::Set(Arc::new(Collection {
                    elem: c.elem.clone(),
                    items: c.items.iter().map(strip).collect(),
                })),
                Value::Map(m) => Value::Map(Arc::new(MapValue {
                    elem: m.elem.clone(),
                    items: m.items.iter().map(|(k, v)| (k.clone(), strip(v))).collect(),
                })),
                Value::Tuple(items) => Value::tuple(items.iter().map(strip).collect()),
                Value::Object(attrs) => {
                    Value::object(attrs.iter().map(|(k, v)| (k.clone(), strip(v))).collect())
                }
                other => other.clone(),
            }
        }
        (strip(self), true)
    }

    /// Wraps the value in the sensitive mark (idempotent).
    pub fn mark(self) -> Value {
        match self {
            Value::Marked(_) => self,
            v => Value::Marked(Arc::new(v)),
        }
    }

    /// Marks `self` if `marked` is true.
    pub fn mark_if(self, marked: bool) -> Value {
        if marked { self.mark() } else { self }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self.unmarked() {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_bool(&self) -> Option<bool> {
        match self.unmarked() {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    pub fn as_number(&self) -> Option<&Number> {
        match self.unmarked() {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Elements of a list, set or tuple (in order), or `None`.
    pub fn as_seq(&self) -> Option<&[Value]> {
        match self.unmarked() {
            Value::List(c) | Value::Set(c) => Some(&c.items),
            Value::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// Attributes of an object or entries of a map, or `None`.
    pub fn as_entries(&self) -> Option<&ObjMap> {
        match self.unmarked() {
            Value::Map(m) => Some(&m.items),
            Value::Object(attrs) => Some(attrs),
            _ => None,
        }
    }
}

/// Structural equality (for tests and caches): same variant, same type,
/// equal contents; numbers compare by value; marks must match. This is
/// not HCL's `==` operator (see the eval crate).
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null(a), Value::Null(b)) | (Value::Unknown(a), Value::Unknown(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::List(a), Value::List(b)) | (Value::Set(a), Value::Set(b)) => {
                a.elem == b.elem && a.items == b.items
            }
            (Value::Map(a), Value::Map(b)) => a.elem == b.elem && a.items == b.items,
            (Value::Tuple(a), Value::Tuple(b)) => a == b,
            (Value::Object(a), Value::Object(b)) => a == b,
            (Value::Marked(a), Value::Marked(b)) => a == b,
            _ => false,
        }
    }
}

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Null(t) => write!(f, "null({t})"),
            Value::Unknown(t) => write!(f, "unknown({t})"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::String(s) => write!(f, "{s:?}"),
            Value::List(c) => write!(f, "list({})", c.elem)
                .and_then(|()| f.debug_list().entries(&c.items).finish()),
            Value::Set(c) => write!(f, "set({})", c.elem)
                .and_then(|()| f.debug_list().entries(&c.items).finish()),
            Value::Map(m) => write!(f, "map({})", m.elem)
                .and_then(|()| f.debug_map().entries(m.items.iter()).finish()),
            Value::Tuple(items) => f.debug_list().entries(items.iter()).finish(),
            Value::Object(attrs) => f.debug_map().entries(attrs.iter()).finish(),
            Value::Marked(v) => write!(f, "sensitive({v:?})"),
        }
    }
}
