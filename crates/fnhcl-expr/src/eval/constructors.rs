//! Object constructors (`{ k = v }`); tuples are built inline by the
//! dispatch in `mod.rs`.

use fnhcl_base::Span;
use fnhcl_syntax::ast::{Expr, ExprKind, ObjectKey, TemplatePart};
use fnhcl_value::{Key, Type, Value};

use super::{Evaluator, R, dynamic, has_errors, unmark};
use crate::compiled::node::{LitObject, ObjItem};
use crate::conv;

/// Object constructors of up to this many keys whose items are not in key
/// order keep their values on the stack (see `literal_object`).
const SMALL_OBJECT: usize = 8;

/// The key of an object item when it is written as a name or a plain
/// ASCII string (the usual case): used as it is, with no evaluation, no
/// conversion and no step of its own.
pub(crate) fn literal_key(key: &ObjectKey) -> Option<&Key> {
    match key {
        ObjectKey::Ident(id) => Some(&id.name),
        ObjectKey::Expr(k) => ascii_literal(k),
    }
}

/// The text of a quoted string of ASCII text alone (no interpolation or
/// directive): what it evaluates to, as it is (ASCII is already NFC).
pub(crate) fn ascii_literal(e: &Expr) -> Option<&Key> {
    match &e.kind {
        ExprKind::Template(t) => match t.parts.as_slice() {
            [TemplatePart::Literal(s)] if s.is_ascii() => Some(s),
            _ => None,
        },
        _ => None,
    }
}

impl Evaluator<'_, '_> {
    /// An object constructor whose keys are all literal, compiled
    /// (`LitObject`): the values are evaluated in source order, as
    /// [`Self::object`] does, and put in their places in the key order
    /// worked out at compile time; a later duplicate overwrites an
    /// earlier one. No sort at run time.
    pub(super) fn literal_object(
        &mut self,
        items: &[fnhcl_syntax::ast::ObjectItem],
        o: &LitObject,
    ) -> R {
        let mut diags = Vec::new();
        // The keys are in key order, without duplicates (sorted and
        // deduplicated at compile time). When the items are written in that
        // order, one each (`apiVersion`, `kind`, `metadata`, `spec`), the
        // object is collected as the items are evaluated, in one allocation:
        // the zipped slices have an exact length `collect` trusts. (The
        // compiler leaves `slots` empty for that order.)
        let n = o.keys.len();
        if o.slots.is_empty() && n == items.len() {
            let entries = fnhcl_value::ObjMap::from_sorted_iter(
                o.keys
                    .iter()
                    .zip(items.iter().zip(o.values.iter()))
                    .map(|(k, (it, node))| {
                        let (val, vd) = self.eval_sub(&it.value, Some(node));
                        if !vd.is_empty() {
                            diags.extend(vd);
                        }
                        (k.clone(), val)
                    }),
            );
            return (Value::object(entries), diags);
        }
        // Otherwise each value goes to its key's slot (a later item of a
        // key replaces an earlier one; every key has at least one item).
        // Objects of a few keys keep the values on the stack and are then
        // one allocation too.
        if n <= SMALL_OBJECT {
            let mut vals: [Option<Value>; SMALL_OBJECT] = Default::default();
            for ((it, node), &slot) in items.iter().zip(o.values.iter()).zip(o.slots.iter()) {
                let (val, vd) = self.eval_sub(&it.value, Some(node));
                if !vd.is_empty() {
                    diags.extend(vd);
                }
                if let Some(e) = vals.get_mut(slot as usize) {
                    *e = Some(val);
                }
            }
            let entries = fnhcl_value::ObjMap::from_sorted_iter(
                o.keys
                    .iter()
                    .zip(vals.iter_mut())
                    .map(|(k, v)| (k.clone(), v.take().unwrap_or(Value::Bool(false)))),
            );
            // Every slot is `None` again: nothing to drop (skips the
            // array's drop walk).
            std::mem::forget(vals);
            return (Value::object(entries), diags);
        }
        // Placeholders (dropped without work), each replaced.
        let mut entries: Vec<(Key, Value)> = o
            .keys
            .iter()
            .map(|k| (k.clone(), Value::Bool(false)))
            .collect();
        for ((it, n), &slot) in items.iter().zip(o.values.iter()).zip(o.slots.iter()) {
            let (val, vd) = self.eval_sub(&it.value, Some(n));
            if !vd.is_empty() {
                diags.extend(vd);
            }
            if let Some(e) = entries.get_mut(slot as usize) {
                e.1 = val;
            }
        }
        (
            Value::object(fnhcl_value::ObjMap::from_sorted(entries)),
            diags,
        )
    }

    /// An object constructor, with its items' compiled nodes when given.
    pub(super) fn object(
        &mut self,
        items: &[fnhcl_syntax::ast::ObjectItem],
        nodes: Option<&[ObjItem]>,
        _span: Span,
    ) -> R {
        let mut diags = Vec::new();
        // Collected in source order and sorted once at the end (a later
        // duplicate key wins, as `collect` keeps the last).
        let mut vals: Vec<(Key, Value)> = Vec::with_capacity(items.len());
        let mut known = true;
        let mut marked = false;
        for (i, it) in items.iter().enumerate() {
            let node = nodes.and_then(|n| n.get(i));
            if let Some(k) = literal_key(&it.key) {
                let (val, vd) = self.eval_sub(&it.value, node.map(|n| &n.value));
                diags.extend(vd);
                vals.push((k.clone(), val));
                continue;
            }
            let (key, kd, kspan) = match &it.key {
                ObjectKey::Ident(id) => (Value::string(id.name.clone()), Vec::new(), id.span),
                // A bare keyword key (`null`, `true`, `false`) is its name.
                ObjectKey::Expr(k) if matches!(k.kind, ExprKind::Null) => {
                    (Value::string("null"), Vec::new(), k.span)
                }
                ObjectKey::Expr(k) => {
                    let (v, d) = self.eval_sub(k, node.and_then(|n| n.key.as_deref()));
                    (v, d, k.span)
                }
            };
            let kerr = has_errors(&kd);
            diags.extend(kd);
            let (val, vd) = self.eval_sub(&it.value, node.map(|n| &n.value));
            diags.extend(vd);
            if kerr {
                known = false;
                continue;
            }
            if key.is_null() {
                diags.push(self.error(
                    "Null value as key",
                    "Can't use a null value as a key.",
                    it.value.span,
                    kspan,
                ));
                known = false;
                continue;
            }
            let (key, km) = unmark(key);
            marked |= km;
            let key = match conv::convert(&key, &Type::String) {
                Ok(k) => k,
                Err(m) => {
                    diags.push(self.error(
                        "Incorrect key type",
                        format!("Can't use this value as a key: {m}."),
                        kspan,
                        kspan,
                    ));
                    known = false;
                    continue;
                }
            };
            match key.unmarked() {
                Value::String(s) => vals.push((s.clone(), val)),
                _ => known = false,
            }
        }
        if !known {
            return (dynamic(), diags);
        }
        (
            Value::object(vals.into_iter().collect()).mark_if(marked),
            diags,
        )
    }
}
