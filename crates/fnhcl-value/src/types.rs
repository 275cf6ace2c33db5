use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A cty type.
///
/// Object attribute maps are sorted by name (cty iterates attributes in
/// lexical order), so equality is structural equality.
// `PartialEq` is written out (the derive's structural equality, inline:
// comparing two primitive types is the common case and needs no call);
// `Hash` and `Ord` derived from the same structure agree with it.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Clone, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// `cty.DynamicPseudoType`: "any type"; the type of an untyped null or a
    /// wholly unknown value.
    Dynamic,
    Bool,
    Number,
    String,
    List(Arc<Type>),
    Set(Arc<Type>),
    Map(Arc<Type>),
    Tuple(Arc<[Type]>),
    Object(Arc<BTreeMap<Arc<str>, Type>>),
}

impl PartialEq for Type {
    #[inline]
    fn eq(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Dynamic, Type::Dynamic)
            | (Type::Bool, Type::Bool)
            | (Type::Number, Type::Number)
            | (Type::String, Type::String) => true,
            (Type::List(a), Type::List(b))
            | (Type::Set(a), Type::Set(b))
            | (Type::Map(a), Type::Map(b)) => a == b,
            (Type::Tuple(a), Type::Tuple(b)) => a == b,
            (Type::Object(a), Type::Object(b)) => a == b,
            _ => false,
        }
    }
}

impl Type {
    pub fn list(elem: Type) -> Type {
        Type::List(Arc::new(elem))
    }
    pub fn set(elem: Type) -> Type {
        Type::Set(Arc::new(elem))
    }
    pub fn map(elem: Type) -> Type {
        Type::Map(Arc::new(elem))
    }
    pub fn tuple(elems: Vec<Type>) -> Type {
        Type::Tuple(elems.into())
    }
    pub fn object(attrs: BTreeMap<Arc<str>, Type>) -> Type {
        Type::Object(Arc::new(attrs))
    }
    pub fn empty_object() -> Type {
        Type::Object(Arc::new(BTreeMap::new()))
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::Bool | Type::Number | Type::String)
    }
    pub fn is_collection(&self) -> bool {
        matches!(self, Type::List(_) | Type::Set(_) | Type::Map(_))
    }
    /// Element type of a list, set or map.
    pub fn element_type(&self) -> Option<&Type> {
        match self {
            Type::List(e) | Type::Set(e) | Type::Map(e) => Some(e),
            _ => None,
        }
    }
    /// True if the type contains `Dynamic` anywhere.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::Bool | Type::Number | Type::String => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic(),
            Type::Tuple(es) => es.iter().any(Type::has_dynamic),
            Type::Object(attrs) => attrs.values().any(Type::has_dynamic),
        }
    }

    /// Short friendly name as used in error messages ("string", "list of
    /// number", "object", ...), following cty's `FriendlyName`.
    pub fn friendly_name(&self) -> String {
        match self {
            Type::Dynamic => "dynamic".into(),
            Type::Bool => "bool".into(),
            Type::Number => "number".into(),
            Type::String => "string".into(),
            Type::List(e) => format!("list of {}", e.friendly_name()),
            Type::Set(e) => format!("set of {}", e.friendly_name()),
            Type::Map(e) => format!("map of {}", e.friendly_name()),
            Type::Tuple(_) => "tuple".into(),
            Type::Object(_) => "object".into(),
        }
    }
}

impl Type {
    /// cty's `FriendlyNameForConstraint`: like [`Type::friendly_name`] but
    /// `Dynamic` is "any type" and a collection of `Dynamic` is "list of any
    /// single type" (used in "... required" messages).
    pub fn friendly_name_for_constraint(&self) -> String {
        match self {
            Type::Dynamic => "any type".into(),
            Type::List(e) | Type::Set(e) | Type::Map(e) => {
                let kind = match self {
                    Type::List(_) => "list",
                    Type::Set(_) => "set",
                    _ => "map",
                };
                let inner = if **e == Type::Dynamic {
                    "any single type".into()
                } else {
                    e.friendly_name_for_constraint()
                };
                format!("{kind} of {inner}")
            }
            other => other.friendly_name(),
        }
    }

    pub fn is_list(&self) -> bool {
        matches!(self, Type::List(_))
    }
    pub fn is_set(&self) -> bool {
        matches!(self, Type::Set(_))
    }
    pub fn is_map(&self) -> bool {
        matches!(self, Type::Map(_))
    }
    pub fn is_tuple(&self) -> bool {
        matches!(self, Type::Tuple(_))
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Type::Object(_))
    }
}

/// Prints the type the way Terraform's `type()` prints it, on one line:
/// `string`, `list(string)`, `tuple([string, number])`,
/// `object({a: number, b: string})`, `dynamic`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dynamic => f.write_str("dynamic"),
            Type::Bool => f.write_str("bool"),
            Type::Number => f.write_str("number"),
            Type::String => f.write_str("string"),
            // `write_str` and `fmt` rather than `write!`: the result type
            // of every `eval --jsonl` line is printed, and the formatting
            // machinery per attribute was most of that.
            Type::List(e) => {
                f.write_str("list(")?;
                fmt::Display::fmt(e, f)?;
                f.write_str(")")
            }
            Type::Set(e) => {
                f.write_str("set(")?;
                fmt::Display::fmt(e, f)?;
                f.write_str(")")
            }
            Type::Map(e) => {
                f.write_str("map(")?;
                fmt::Display::fmt(e, f)?;
                f.write_str(")")
            }
            Type::Tuple(es) => {
                f.write_str("tuple([")?;
                for (i, e) in es.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    fmt::Display::fmt(e, f)?;
                }
                f.write_str("])")
            }
            Type::Object(attrs) => {
                f.write_str("object({")?;
                for (i, (k, t)) in attrs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(k)?;
                    f.write_str(": ")?;
                    fmt::Display::fmt(t, f)?;
                }
                f.write_str("})")
            }
        }
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
