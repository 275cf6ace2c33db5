//! Conditionals (`c ? a : b`, also `%{if}` in templates) and unary and
//! binary operators: operand conversion, unknowns, marks and HCL's
//! messages; the cty arithmetic itself is in `crate::ops`.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_syntax::ast::{BinaryOp, Expr, UnaryOp};
use fnhcl_value::{Type, Value};

use super::{Branch, Diags, Evaluator, R, convert_owned, dynamic, has_errors, unmark_deep_owned};
use crate::compiled::node::Node;
use crate::conv;
use crate::ops::{self, Arith, Cmp};

impl Evaluator<'_, '_> {
    pub(super) fn conditional(
        &mut self,
        cond: &Expr,
        cn: Option<&Node>,
        t: Branch<'_>,
        f: Branch<'_>,
        span: Span,
    ) -> R {
        let (tv, td) = self.eval_branch(t);
        let (fv, fd) = self.eval_branch(f);
        let mut diags = Vec::new();
        // Two known, unmarked scalars of one kind (`c ? "a" : "b"`): their
        // type is the result's and neither is converted, what the general
        // rules below give, without building and comparing the types.
        let (result_ty, conv_t, conv_f) = match same_scalar_kind(&tv, &fv) {
            Some(ty) => (ty, None, None),
            None => match self.conditional_types(&tv, &fv, t, f, span) {
                Ok(types) => types,
                Err(d) => return (dynamic(), vec![d]),
            },
        };
        let (cv, cd) = self.eval_sub(cond, cn);
        if !cd.is_empty() {
            diags.extend(cd);
        }
        let cb = match cv {
            // The usual condition: nothing to unmark or convert.
            Value::Bool(b) => b,
            cv => match self.condition(cv, cond, &mut diags) {
                Some(b) => b,
                None => return (Value::Unknown(result_ty), diags),
            },
        };
        let (v, d, conv_to, which, bspan) = if cb {
            (tv, td, conv_t, "true", t.span())
        } else {
            (fv, fd, conv_f, "false", f.span())
        };
        diags.extend(d);
        let v = match conv_to {
            Some(ty) => match conv::convert(&v, &ty) {
                Ok(v) => v,
                Err(m) => {
                    diags.push(self.error(
                        "Inconsistent conditional result types",
                        format!("The {which} result value has the wrong type: {m}."),
                        bspan,
                        bspan,
                    ));
                    Value::Unknown(result_ty)
                }
            },
            None => v,
        };
        (v, diags)
    }

    /// A conditional's result type and the types its true and false
    /// values must be converted to (`None`: as they are), or the
    /// "Inconsistent conditional result types" error.
    #[inline(never)]
    fn conditional_types(
        &self,
        tv: &Value,
        fv: &Value,
        t: Branch<'_>,
        f: Branch<'_>,
        span: Span,
    ) -> Result<(Type, Option<Type>, Option<Type>), Diagnostic> {
        let tt = tv.type_of();
        let ft = fv.type_of();
        let untyped_null = |v: &Value| matches!(v.unmarked(), Value::Null(Type::Dynamic));
        // `conv_t`/`conv_f`: the type each branch must be converted to.
        Ok(if untyped_null(tv) {
            (ft.clone(), Some(ft.clone()), None)
        } else if untyped_null(fv) {
            (tt.clone(), None, Some(tt.clone()))
        } else if matches!(tt, Type::Dynamic) || matches!(ft, Type::Dynamic) {
            (Type::Dynamic, None, None)
        } else if tt == ft {
            // Already the same type: unification is the identity.
            (tt.clone(), None, None)
        } else {
            match conv::unify(&[tt.clone(), ft.clone()]) {
                Some(u) => {
                    let ct = (u != tt).then(|| u.clone());
                    let cf = (u != ft).then(|| u.clone());
                    (u, ct, cf)
                }
                None => {
                    let sub = t.span().to(f.span());
                    return Err(self.error(
                        "Inconsistent conditional result types",
                        format!(
                            "The true and false result expressions must have consistent types. {}.",
                            describe_mismatch(&tt, &ft, 0)
                        ),
                        sub,
                        span,
                    ));
                }
            }
        })
    }

    /// A condition's value other than a plain `true` or `false`: `None`
    /// (the result is unknown) when it is null, unknown or not a bool,
    /// with the diagnostic of the first and the last.
    #[inline(never)]
    fn condition(&self, cv: Value, cond: &Expr, diags: &mut Diags) -> Option<bool> {
        if cv.is_null() {
            diags.push(self.error(
                "Null condition",
                "The condition value is null. Conditions must either be true or false.",
                cond.span,
                cond.span,
            ));
            return None;
        }
        // HCL 2.14: the condition's marks are not carried to the result.
        let (cv, _) = unmark_deep_owned(cv);
        if !cv.is_known() {
            return None;
        }
        match convert_owned(cv, &Type::Bool) {
            Ok(Value::Bool(b)) => Some(b),
            _ => {
                diags.push(self.error(
                    "Incorrect condition type",
                    "The condition expression must be of type bool.",
                    cond.span,
                    cond.span,
                ));
                None
            }
        }
    }

    // ---------------------------------------------------------------
    // Operators.

    pub(super) fn unary(&mut self, op: UnaryOp, x: &Expr, xn: Option<&Node>, span: Span) -> R {
        let (v, mut diags) = self.eval_sub(x, xn);
        let want = match op {
            UnaryOp::Neg => Type::Number,
            UnaryOp::Not => Type::Bool,
        };
        let v = match convert_owned(v, &want) {
            Ok(v) => v,
            Err((v, m)) => {
                diags.push(self.error(
                    "Invalid operand",
                    format!("Unsuitable value for unary operand: {m}."),
                    x.span,
                    x.span,
                ));
                v
            }
        };
        if has_errors(&diags) {
            return (Value::Unknown(want), diags);
        }
        let (v, marked) = unmark_deep_owned(v);
        if v.is_null() {
            diags.push(self.op_failed("argument must not be null", span));
            return (Value::Unknown(want), diags);
        }
        if !v.is_known() {
            return (Value::Unknown(want), diags);
        }
        let out = match (&v, op) {
            (Value::Number(n), UnaryOp::Neg) => Value::Number(n.neg()),
            (Value::Bool(b), UnaryOp::Not) => Value::Bool(!b),
            _ => Value::Unknown(want),
        };
        (out.mark_if(marked), diags)
    }

    pub(super) fn op_failed(&self, msg: &str, span: Span) -> Diagnostic {
        self.error(
            "Operation failed",
            format!("Error during operation: {msg}."),
            span,
            span,
        )
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        [a, b]: [&Expr; 2],
        nodes: Option<&[Node; 2]>,
        span: Span,
    ) -> R {
        let (av, ad) = self.eval_sub(a, nodes.map(|n| &n[0]));
        let (bv, bd) = self.eval_sub(b, nodes.map(|n| &n[1]));
        if matches!(op, BinaryOp::And | BinaryOp::Or)
            && !(ad.is_empty()
                && bd.is_empty()
                && matches!(av, Value::Bool(_))
                && matches!(bv, Value::Bool(_)))
        {
            return self.logical(op, [a, b], [(av, ad), (bv, bd)], span);
        }
        let mut diags = ad;
        if !bd.is_empty() {
            diags.extend(bd);
        }
        // Known, unmarked operands already of the operator's parameter
        // type (`index % 2 == 0`): the general path below would convert,
        // unmark and check nothing; its rules are applied directly.
        if diags.is_empty() && plain_operands(op, &av, &bv) {
            return self.apply_binary(op, &av, &bv, span, false, diags);
        }
        self.binary_general(op, [a, b], av, bv, diags, span)
    }

    /// `&&` and `||` when an operand has diagnostics, as HCL 2.24 (the
    /// Go function-hcl's) evaluates them: a known controlling operand
    /// (`false` for `&&`, `true` for `||`) decides the result with only
    /// its own diagnostics, and an unknown operand facing the other
    /// value decides it (unknown) with its own, so an error in the
    /// operand that does not matter is dropped. Conversion errors, and
    /// two unknowns of which the left has errors, take the general path
    /// (every diagnostic, an unknown result).
    #[inline(never)]
    fn logical(
        &mut self,
        op: BinaryOp,
        [a, b]: [&Expr; 2],
        [(av, ad), (bv, bd)]: [(Value, Diags); 2],
        span: Span,
    ) -> R {
        let control = op == BinaryOp::Or;
        let known_bool = |v: &Value| match convert_owned(v.clone(), &Type::Bool) {
            Ok(c) => {
                let (c, marked) = unmark_deep_owned(c);
                match c {
                    Value::Bool(x) => Some((Some(x), marked)),
                    c if !c.is_known() && !c.is_null() => Some((None, marked)),
                    _ => None,
                }
            }
            Err(_) => None,
        };
        if let (Some((x, xm)), Some((y, ym))) = (known_bool(&av), known_bool(&bv)) {
            let marked = xm || ym;
            // Which operand decides, and the result.
            let decided = match (x, y) {
                (None, None) if !has_errors(&ad) => Some((true, None)),
                (None, None) => None,
                (Some(x), _) if x == control => Some((true, Some(control))),
                (_, Some(y)) if y == control => Some((false, Some(control))),
                (None, Some(_)) => Some((true, None)),
                (Some(_), None) => Some((false, None)),
                (Some(_), Some(_)) => None,
            };
            if let Some((left, value)) = decided {
                let v = match value {
                    Some(b) => Value::Bool(b),
                    None => Value::Unknown(Type::Bool),
                };
                return (v.mark_if(marked), if left { ad } else { bd });
            }
        }
        let mut diags = ad;
        diags.extend(bd);
        self.binary_general(op, [a, b], av, bv, diags, span)
    }

    /// [`Self::binary`] of operands that may need conversion or
    /// unmarking, or after a diagnostic.
    #[inline(never)]
    fn binary_general(
        &mut self,
        op: BinaryOp,
        [a, b]: [&Expr; 2],
        av: Value,
        bv: Value,
        mut diags: Diags,
        span: Span,
    ) -> R {
        let (param, result) = operand_types(op);
        let convert =
            |v: Value, side: &str, s: Span, diags: &mut Diags| match convert_owned(v, &param) {
                Ok(v) => v,
                Err((v, m)) => {
                    diags.push(self.error(
                        "Invalid operand",
                        format!("Unsuitable value for {side} operand: {m}."),
                        s,
                        s,
                    ));
                    v
                }
            };
        let av = convert(av, "left", a.span, &mut diags);
        let bv = convert(bv, "right", b.span, &mut diags);
        if has_errors(&diags) {
            return (Value::Unknown(result), diags);
        }
        let (av, am) = unmark_deep_owned(av);
        let (bv, bm) = unmark_deep_owned(bv);
        self.apply_binary(op, &av, &bv, span, am || bm, diags)
    }

    /// The operator on converted, unmarked operands; the result marked
    /// when `marked`.
    fn apply_binary(
        &self,
        op: BinaryOp,
        av: &Value,
        bv: &Value,
        span: Span,
        marked: bool,
        mut diags: Diags,
    ) -> R {
        let (_, result) = operand_types(op);
        if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
            let r = match ops::equals(av, bv) {
                Some(eq) => Value::Bool(eq == (op == BinaryOp::Eq)),
                None => Value::Unknown(Type::Bool),
            };
            return (r.mark_if(marked), diags);
        }
        if av.is_null() || bv.is_null() {
            diags.push(self.op_failed("argument must not be null", span));
            return (Value::Unknown(result), diags);
        }
        if !av.is_known() || !bv.is_known() {
            // cty's call short-circuit returns the unknown without marks.
            return (Value::Unknown(result), diags);
        }
        let out = match (op, av, bv) {
            (BinaryOp::And, Value::Bool(x), Value::Bool(y)) => Value::Bool(*x && *y),
            (BinaryOp::Or, Value::Bool(x), Value::Bool(y)) => Value::Bool(*x || *y),
            (_, Value::Number(x), Value::Number(y)) => {
                let cmp = match op {
                    BinaryOp::Lt => Some(Cmp::Lt),
                    BinaryOp::LtEq => Some(Cmp::LtEq),
                    BinaryOp::Gt => Some(Cmp::Gt),
                    BinaryOp::GtEq => Some(Cmp::GtEq),
                    _ => None,
                };
                if let Some(c) = cmp {
                    Value::Bool(ops::compare(c, x, y))
                } else {
                    let ar = match op {
                        BinaryOp::Add => Arith::Add,
                        BinaryOp::Sub => Arith::Sub,
                        BinaryOp::Mul => Arith::Mul,
                        BinaryOp::Div => Arith::Div,
                        _ => Arith::Mod,
                    };
                    match ops::arith(ar, x, y) {
                        Ok(n) => Value::Number(n),
                        Err(m) => {
                            diags.push(self.op_failed(&m, span));
                            return (Value::Unknown(result), diags);
                        }
                    }
                }
            }
            _ => Value::Unknown(result),
        };
        (out.mark_if(marked), diags)
    }
}

/// A binary operator's parameter type (both operands are converted to
/// it) and its result type.
#[inline]
fn operand_types(op: BinaryOp) -> (Type, Type) {
    match op {
        BinaryOp::Eq | BinaryOp::NotEq => (Type::Dynamic, Type::Bool),
        BinaryOp::And | BinaryOp::Or => (Type::Bool, Type::Bool),
        BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => (Type::Number, Type::Bool),
        _ => (Type::Number, Type::Number),
    }
}

/// The type of two known, unmarked scalars of the same kind (a
/// conditional's usual branches), `None` for anything else.
#[inline]
fn same_scalar_kind(a: &Value, b: &Value) -> Option<Type> {
    match (a, b) {
        (Value::String(_), Value::String(_)) => Some(Type::String),
        (Value::Number(_), Value::Number(_)) => Some(Type::Number),
        (Value::Bool(_), Value::Bool(_)) => Some(Type::Bool),
        _ => None,
    }
}

/// Whether `op`'s operands are known, unmarked, non-null values of its
/// parameter type already: numbers for arithmetic and comparisons,
/// bools for `&&` and `||`, scalars for `==` and `!=` (whose parameter
/// is any type).
#[inline]
fn plain_operands(op: BinaryOp, a: &Value, b: &Value) -> bool {
    let scalar = |v: &Value| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_));
    match op {
        BinaryOp::Eq | BinaryOp::NotEq => scalar(a) && scalar(b),
        BinaryOp::And | BinaryOp::Or => matches!((a, b), (Value::Bool(_), Value::Bool(_))),
        _ => matches!((a, b), (Value::Number(_), Value::Number(_))),
    }
}

/// HCL's `describeConditionalTypeMismatch`.
fn describe_mismatch(t: &Type, f: &Type, depth: usize) -> String {
    if depth < 32 {
        match (t, f) {
            (Type::Object(ta), Type::Object(fa)) => {
                for (name, tty) in ta.iter() {
                    match fa.get(name) {
                        None => {
                            return format!(
                                "The 'true' value includes object attribute {name:?}, which is absent in the 'false' value"
                            );
                        }
                        Some(fty) if fty != tty => {
                            return format!(
                                "Type mismatch for object attribute {name:?}: {}",
                                describe_mismatch(tty, fty, depth + 1)
                            );
                        }
                        _ => {}
                    }
                }
                for name in fa.keys() {
                    if !ta.contains_key(name) {
                        return format!(
                            "The 'false' value includes object attribute {name:?}, which is absent in the 'true' value"
                        );
                    }
                }
            }
            (Type::Tuple(te), Type::Tuple(fe)) => {
                if te.len() != fe.len() {
                    return format!(
                        "The 'true' tuple has length {}, but the 'false' tuple has length {}",
                        te.len(),
                        fe.len()
                    );
                }
                for (i, (a, b)) in te.iter().zip(fe.iter()).enumerate() {
                    if a != b {
                        return format!(
                            "Mismatched tuple element types at index {i}: {}",
                            describe_mismatch(a, b, depth + 1)
                        );
                    }
                }
            }
            _ => {}
        }
    }
    format!(
        "The 'true' value is {}, but the 'false' value is {}",
        t.friendly_name(),
        f.friendly_name()
    )
}
