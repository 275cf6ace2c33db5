//! The function registry and the dispatcher.
//!
//! Every built-in is declared once, as a [`FuncDef`]: name, short
//! description, positional parameters, an optional variadic parameter, a
//! return-type function and an implementation. The dispatcher
//! ([`FuncDef::call`]) applies HCL's and cty's calling convention so that
//! implementations only ever see well-typed arguments:
//!
//! 1. arity check (HCL's "Not enough function arguments" / "Too many
//!    function arguments");
//! 2. each argument is converted to its parameter type (HCL converts before
//!    calling cty); a failed conversion is an argument error;
//! 3. cty's type check: a null argument is rejected with "argument must not
//!    be null" unless the parameter allows null; an argument of dynamic type
//!    (a wholly unknown value or an untyped null) to a parameter that does
//!    not allow the dynamic type makes the return type dynamic without
//!    calling the return-type function;
//! 4. marks: every argument whose parameter does not allow marks is
//!    unmarked deeply, and the result is marked if any mark was removed;
//! 5. an argument that is unknown (at the top level: cty 1.12 does not look
//!    inside collections here), for a parameter that does not allow
//!    unknowns, makes the result an unmarked unknown of the return type
//!    without calling the implementation;
//! 6. the implementation runs; its result is checked against the return
//!    type.
//!
//! # Adding a function
//!
//! Write a `register(r: &mut Registry)` function in your module and call it
//! from `build` in `catalog.rs`. Example (see `numeric.rs` for real ones):
//!
//! ```text
//! r.add(
//!     FuncDef::new("upper", "Converts all cased letters to uppercase.")
//!         .param(Param::new("str", Type::String))
//!         .returns(Type::String)
//!         .implement(|args| {
//!             let s = args[0].as_str().unwrap_or_default();
//!             Ok(Value::string(s.to_uppercase()))
//!         }),
//! );
//! ```
//!
//! Inside an implementation, `args` are already converted to the parameter
//! types, unmarked (unless `allow_marked`), non-null (unless `allow_null`)
//! and known at the top level (unless `allow_unknown`); ELEMENTS of a
//! collection argument may still be unknown (as in cty), so handle them. Variadic arguments follow the
//! positional ones in the same slice. Return errors with
//! [`CallError::arg`] (blames one argument: shown as "Invalid value for
//! "<param>" parameter: <message>.") or [`CallError::new`] (shown as "Call
//! to function "<name>" failed: <message>."). Messages follow cty/Terraform
//! wording: no capital, no trailing period.

use std::collections::HashMap;

use fnhcl_value::{Type, Value};

use crate::error::CallError;

/// Computes the return type from the (converted, unmarked) arguments, as
/// cty's `function.Spec.Type`. Arguments may be unknown or null (when the
/// parameter allows it), so inspect values only where cty does.
pub type ReturnTypeFn = fn(&[Value]) -> Result<Type, CallError>;

/// The implementation, as cty's `function.Spec.Impl` (the return type can
/// be recomputed by calling the return-type function if needed).
pub type ImplFn = fn(&[Value]) -> Result<Value, CallError>;

/// One parameter.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: &'static str,
    /// The parameter type; arguments are converted to it. `Type::Dynamic`
    /// accepts anything unchanged.
    pub ty: Type,
    pub allow_null: bool,
    pub allow_unknown: bool,
    /// Accept an argument whose type is `Dynamic` (a wholly unknown value
    /// or an untyped null) instead of short-circuiting to an unknown of
    /// dynamic type.
    pub allow_dynamic_type: bool,
    pub allow_marked: bool,
}

impl Param {
    pub fn new(name: &'static str, ty: Type) -> Param {
        Param {
            name,
            ty,
            allow_null: false,
            allow_unknown: false,
            allow_dynamic_type: false,
            allow_marked: false,
        }
    }
    pub fn allow_null(mut self) -> Param {
        self.allow_null = true;
        self
    }
    pub fn allow_unknown(mut self) -> Param {
        self.allow_unknown = true;
        self
    }
    pub fn allow_dynamic_type(mut self) -> Param {
        self.allow_dynamic_type = true;
        self
    }
    pub fn allow_marked(mut self) -> Param {
        self.allow_marked = true;
        self
    }
}

/// How the return type is determined.
#[derive(Clone)]
pub enum Returns {
    /// Always this type.
    Static(Type),
    /// Computed from the arguments.
    Computed(ReturnTypeFn),
}

/// Who evaluates the function.
#[derive(Clone, Copy)]
pub enum Implementation {
    /// A normal function, called with evaluated arguments.
    Native(ImplFn),
    /// `try`, `can`, `invoke`: evaluated by the expression evaluator
    /// (lazy arguments or user functions). Listed here for documentation
    /// and name checks; [`FuncDef::call`] refuses them.
    Evaluator,
}

/// One built-in function.
#[derive(Clone)]
pub struct FuncDef {
    pub name: &'static str,
    /// One-line description (for `fn-hcl functions` and docs).
    pub description: &'static str,
    pub params: Vec<Param>,
    pub variadic: Option<Param>,
    pub returns: Returns,
    /// Human-readable return type for docs when `returns` is computed
    /// (e.g. "list of the element type").
    pub returns_doc: Option<&'static str>,
    pub implementation: Implementation,
    /// Section in the function listing ("Numeric", "String", ...); set by
    /// [`Registry::in_category`].
    pub category: &'static str,
}

impl FuncDef {
    /// A function with no parameters returning dynamic, refusing calls
    /// until [`FuncDef::implement`] is used.
    pub fn new(name: &'static str, description: &'static str) -> FuncDef {
        FuncDef {
            name,
            description,
            params: Vec::new(),
            variadic: None,
            returns: Returns::Static(Type::Dynamic),
            returns_doc: None,
            implementation: Implementation::Evaluator,
            category: "",
        }
    }
    pub fn param(mut self, p: Param) -> FuncDef {
        self.params.push(p);
        self
    }
    pub fn variadic(mut self, p: Param) -> FuncDef {
        self.variadic = Some(p);
        self
    }
    /// A fixed return type.
    pub fn returns(mut self, ty: Type) -> FuncDef {
        self.returns = Returns::Static(ty);
        self
    }
    /// A return type computed from the arguments; `doc` describes it for
    /// the function listing (e.g. "list(string)" or "same as list").
    pub fn returns_with(mut self, doc: &'static str, f: ReturnTypeFn) -> FuncDef {
        self.returns = Returns::Computed(f);
        self.returns_doc = Some(doc);
        self
    }
    pub fn implement(mut self, f: ImplFn) -> FuncDef {
        self.implementation = Implementation::Native(f);
        self
    }

    /// The parameter that receives argument `i` (positional or variadic).
    pub fn param_for(&self, i: usize) -> Option<&Param> {
        self.params.get(i).or(self.variadic.as_ref())
    }

    /// One-line signature in Terraform's docs style, e.g.
    /// `max(numbers ...number) number`.
    pub fn signature(&self) -> String {
        let mut s = String::new();
        s.push_str(self.name);
        s.push('(');
        let mut first = true;
        for p in &self.params {
            if !first {
                s.push_str(", ");
            }
            first = false;
            s.push_str(p.name);
            s.push(' ');
            s.push_str(&type_doc(&p.ty));
        }
        if let Some(p) = &self.variadic {
            if !first {
                s.push_str(", ");
            }
            s.push_str(p.name);
            s.push_str(" ...");
            s.push_str(&type_doc(&p.ty));
        }
        s.push_str(") ");
        match (&self.returns, self.returns_doc) {
            (_, Some(doc)) => s.push_str(doc),
            (Returns::Static(t), None) => s.push_str(&type_doc(t)),
            (Returns::Computed(_), None) => s.push_str("any"),
        }
        s
    }

    /// HCL's arity check. `Err` carries the summary and detail of HCL's
    /// diagnostic.
    #[inline]
    pub fn check_arity(&self, n: usize) -> Result<(), (&'static str, String)> {
        // Every call checks: the usual right count is decided inline.
        if n == self.params.len() || (n > self.params.len() && self.variadic.is_some()) {
            return Ok(());
        }
        self.arity_error(n)
    }

    /// [`Self::check_arity`] of a wrong argument count.
    #[cold]
    #[inline(never)]
    fn arity_error(&self, n: usize) -> Result<(), (&'static str, String)> {
        if n < self.params.len() {
            let missing = self.params[n].name;
            let qual = if self.variadic.is_some() {
                " at least"
            } else {
                ""
            };
            return Err((
                "Not enough function arguments",
                format!(
                    "Function {:?} expects{qual} {} argument(s). Missing value for {:?}.",
                    self.name,
                    self.params.len(),
                    missing
                ),
            ));
        }
        if self.variadic.is_none() && n > self.params.len() {
            return Err((
                "Too many function arguments",
                format!(
                    "Function {:?} expects only {} argument(s).",
                    self.name,
                    self.params.len()
                ),
            ));
        }
        Ok(())
    }

    /// Calls the function with cty's semantics (see the module docs).
    pub fn call(&self, args: &[Value]) -> Result<Value, CallError> {
        let imp = match self.implementation {
            Implementation::Native(f) => f,
            Implementation::Evaluator => {
                return Err(CallError::new(format!(
                    "function {:?} must be evaluated by the expression evaluator",
                    self.name
                )));
            }
        };
        if let Err((summary, detail)) = self.check_arity(args.len()) {
            return Err(CallError::new(format!("{summary}: {detail}")));
        }
        if self.ready_as_is(args) {
            return self.call_ready(imp, args);
        }
        self.call_general(imp, args)
    }

    /// Whether every argument can go to the implementation as it is:
    /// already of its parameter's type, and not stopped by any of the
    /// checks below (marks, null, dynamic type, unknown). Then the steps
    /// of [`Self::call_general`] would change nothing: no conversion, no
    /// mark to strip or put back, no null error, no short-circuit.
    #[inline]
    fn ready_as_is(&self, args: &[Value]) -> bool {
        args.iter().enumerate().all(|(i, a)| {
            let Some(p) = self.param_for(i) else {
                return false;
            };
            // A known, unmarked scalar of the parameter's kind, or for a
            // parameter of any type (most arguments): every check below
            // passes, decided without a call.
            if matches!(
                (a, &p.ty),
                (Value::String(_), Type::String | Type::Dynamic)
                    | (Value::Number(_), Type::Number | Type::Dynamic)
                    | (Value::Bool(_), Type::Bool | Type::Dynamic)
            ) {
                return true;
            }
            // A collection for a parameter of any type (`merge`'s objects):
            // of its type, not null, known, typed; only marks inside can
            // stop it.
            if matches!(p.ty, Type::Dynamic)
                && !matches!(a, Value::Null(_) | Value::Unknown(_) | Value::Marked(_))
            {
                return p.allow_marked || !a.is_marked_deep();
            }
            fnhcl_value::convert::has_type_shallow(a, &p.ty)
                && (p.allow_null || !a.is_null())
                && (p.allow_unknown || a.is_known())
                && (p.allow_dynamic_type
                    || !matches!(
                        a.unmarked(),
                        Value::Null(Type::Dynamic) | Value::Unknown(Type::Dynamic)
                    ))
                && (p.allow_marked || !a.is_marked_deep())
        })
    }

    /// [`Self::call`] of arguments [`Self::ready_as_is`]: the return-type
    /// function still runs (it can refuse the arguments), then the
    /// implementation on the arguments themselves.
    #[inline]
    fn call_ready(&self, imp: ImplFn, args: &[Value]) -> Result<Value, CallError> {
        let computed = match &self.returns {
            Returns::Static(_) => None,
            Returns::Computed(f) => Some(f(args)?),
        };
        let out = imp(args)?;
        if cfg!(debug_assertions) {
            let ret = match (&computed, &self.returns) {
                (Some(t), _) | (None, Returns::Static(t)) => t,
                (None, Returns::Computed(_)) => &Type::Dynamic,
            };
            self.check_result(&out, ret)?;
        }
        Ok(out)
    }

    /// [`Self::call`] of arguments that need conversion, unmarking or one
    /// of cty's checks.
    #[inline(never)]
    fn call_general(&self, imp: ImplFn, args: &[Value]) -> Result<Value, CallError> {
        // Conversion to parameter types (HCL), then unmarking. Arguments
        // that already have their parameter's type and carry no mark to
        // strip are used as they are; a copy is made from the first one
        // that needs work.
        let mut owned: Option<Vec<Value>> = None;
        let mut marked = false;
        for (i, a) in args.iter().enumerate() {
            let Some(p) = self.param_for(i) else {
                return Err(CallError::new("Too many function arguments"));
            };
            if fnhcl_value::convert::has_type_shallow(a, &p.ty)
                && (p.allow_marked || !a.is_marked_deep())
            {
                if let Some(o) = owned.as_mut() {
                    o.push(a.clone());
                }
                continue;
            }
            let v = crate::convert::convert(a, &p.ty).map_err(|m| CallError::arg(i, m))?;
            let v = if p.allow_marked {
                v
            } else {
                let (u, m) = v.unmark_deep();
                marked |= m;
                u
            };
            owned
                .get_or_insert_with(|| {
                    let mut o = Vec::with_capacity(args.len());
                    o.extend_from_slice(&args[..i]);
                    o
                })
                .push(v);
        }
        let conv: &[Value] = owned.as_deref().unwrap_or(args);

        // Type check (cty ReturnTypeForValues).
        let mut ret: Option<Type> = None;
        for (i, v) in conv.iter().enumerate() {
            let Some(p) = self.param_for(i) else { break };
            if v.is_null() && !p.allow_null {
                return Err(CallError::arg(i, "argument must not be null"));
            }
            // Only a null or unknown value can have the dynamic type
            // (checked without computing the whole type of big objects).
            if matches!(
                v.unmarked(),
                Value::Null(Type::Dynamic) | Value::Unknown(Type::Dynamic)
            ) && !p.allow_dynamic_type
            {
                ret = Some(Type::Dynamic);
                break;
            }
        }
        let ret = match ret {
            Some(t) => t,
            None => match &self.returns {
                Returns::Static(t) => t.clone(),
                Returns::Computed(f) => f(conv)?,
            },
        };

        // Unknown short-circuit (cty Call).
        for (i, v) in conv.iter().enumerate() {
            let Some(p) = self.param_for(i) else { break };
            // cty 1.12 checks only the top level here and returns the
            // unknown without the arguments' marks.
            if !p.allow_unknown && !v.is_known() {
                return Ok(Value::Unknown(ret));
            }
        }

        let out = imp(conv)?;
        if cfg!(debug_assertions) {
            self.check_result(&out, &ret)?;
        }
        Ok(out.mark_if(marked))
    }

    /// The implementations are tested to return the declared type; the
    /// check walks the whole result, so only debug builds make it.
    fn check_result(&self, out: &Value, ret: &Type) -> Result<(), CallError> {
        if *ret != Type::Dynamic && !conforms(&out.type_of(), ret) {
            return Err(CallError::new(format!(
                "internal error: {} returned {} where {} was expected",
                self.name,
                out.type_of(),
                ret
            )));
        }
        Ok(())
    }
}

/// cty's `TestConformance`: `actual` conforms to `expected` if they are
/// equal, with `Dynamic` in `expected` matching anything.
pub fn conforms(actual: &Type, expected: &Type) -> bool {
    match (actual, expected) {
        (_, Type::Dynamic) => true,
        (Type::List(a), Type::List(e))
        | (Type::Set(a), Type::Set(e))
        | (Type::Map(a), Type::Map(e)) => conforms(a, e),
        (Type::Tuple(a), Type::Tuple(e)) => {
            a.len() == e.len() && a.iter().zip(e.iter()).all(|(a, e)| conforms(a, e))
        }
        (Type::Object(a), Type::Object(e)) => {
            a.len() == e.len()
                && a.iter()
                    .zip(e.iter())
                    .all(|((ka, ta), (ke, te))| ka == ke && conforms(ta, te))
        }
        (a, e) => a == e,
    }
}

/// Parameter type as written in docs: `number`, `list(string)`, `any`.
fn type_doc(t: &Type) -> String {
    if *t == Type::Dynamic {
        "any".to_owned()
    } else {
        t.to_string().replace("dynamic", "any")
    }
}

/// All built-ins, by name.
pub struct Registry {
    /// By name, hashed: every call looks its function up here.
    funcs: HashMap<&'static str, FuncDef, foldhash::fast::FixedState>,
    category: &'static str,
}

impl Registry {
    /// A registry with no functions (see [`crate::catalog`]).
    pub(crate) fn empty() -> Registry {
        Registry {
            funcs: HashMap::default(),
            category: "",
        }
    }

    /// Adds a function. A duplicate name replaces the earlier definition;
    /// the test `registry_names_unique` catches that.
    pub fn add(&mut self, mut f: FuncDef) {
        if f.category.is_empty() {
            f.category = self.category;
        }
        if let Some(old) = self.funcs.insert(f.name, f) {
            debug_assert!(false, "function {:?} registered twice", old.name);
        }
    }

    /// Runs a module's `register` with `category` as the section of the
    /// functions it adds.
    pub fn in_category(&mut self, category: &'static str, register: fn(&mut Registry)) {
        self.category = category;
        register(self);
        self.category = "";
    }

    pub fn get(&self, name: &str) -> Option<&FuncDef> {
        self.funcs.get(name)
    }

    /// All functions, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &FuncDef> {
        let mut all: Vec<&FuncDef> = self.funcs.values().collect();
        all.sort_by_key(|f| f.name);
        all.into_iter()
    }

    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use fnhcl_value::{Type, Value};

    use super::{FuncDef, Param, conforms};
    use crate::error::CallError;

    fn f() -> FuncDef {
        FuncDef::new("t", "Test function.")
            .param(Param::new("a", Type::Number))
            .variadic(Param::new("rest", Type::String))
            .returns(Type::Number)
            .implement(|args| Ok(args[0].clone()))
    }

    #[test]
    fn arity_errors_use_hcl_wording() {
        let f = f();
        let e = f.call(&[]).unwrap_err();
        assert_eq!(
            e.message,
            "Not enough function arguments: Function \"t\" expects at least 1 argument(s). Missing value for \"a\"."
        );
        let g = FuncDef::new("g", "G.")
            .param(Param::new("x", Type::Number))
            .implement(|a| Ok(a[0].clone()));
        let e = g.call(&[Value::int(1), Value::int(2)]).unwrap_err();
        assert_eq!(
            e.message,
            "Too many function arguments: Function \"g\" expects only 1 argument(s)."
        );
        assert_eq!(g.signature(), "g(x number) any");
        assert_eq!(f.signature(), "t(a number, rest ...string) number");
    }

    #[test]
    fn conversion_null_unknown_and_marks() {
        let f = f();
        // Conversion of each argument to its parameter type.
        assert_eq!(
            f.call(&[Value::string("2"), Value::int(3)]),
            Ok(Value::int(2))
        );
        assert_eq!(
            f.call(&[Value::TRUE]),
            Err(CallError::arg(0, "number required"))
        );
        // Nulls are refused unless allowed.
        assert_eq!(
            f.call(&[Value::null()]),
            Err(CallError::arg(0, "argument must not be null"))
        );
        assert_eq!(
            f.call(&[Value::int(1), Value::null()]),
            Err(CallError::arg(1, "argument must not be null"))
        );
        // An unknown argument gives an unknown of the return type, without
        // the marks (cty 1.12).
        assert_eq!(
            f.call(&[Value::int(1), Value::Unknown(Type::String).mark()]),
            Ok(Value::Unknown(Type::Number))
        );
        // Marks are removed for the implementation and put on the result.
        assert_eq!(f.call(&[Value::int(1).mark()]), Ok(Value::int(1).mark()));
        assert_eq!(
            f.call(&[Value::int(1), Value::string("x").mark()]),
            Ok(Value::int(1).mark())
        );
    }

    #[test]
    fn conformance_treats_dynamic_as_wildcard() {
        assert!(conforms(
            &Type::list(Type::String),
            &Type::list(Type::Dynamic)
        ));
        assert!(conforms(&Type::Number, &Type::Dynamic));
        assert!(!conforms(
            &Type::list(Type::String),
            &Type::set(Type::Dynamic)
        ));
        assert!(!conforms(
            &Type::tuple(vec![Type::String]),
            &Type::tuple(vec![])
        ));
    }
}
