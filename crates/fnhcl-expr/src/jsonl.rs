//! The `fn-hcl eval --jsonl` protocol, shared with `hcl-oracle`:
//! one JSON object per input line, `{"id", "expr", "vars"}`, answered by
//! `{"id", "type", "value"}`, `{"id", "type", "unknown": true}` or
//! `{"id", "error", "phase": "parse"|"eval"}`.
//!
//! Lines are read by `fnhcl_value::json::from_json_text`; variables are
//! converted as cty's implied JSON types do (objects become objects, arrays
//! tuples, numbers exact). Two test conventions: the exact
//! object `{"$unknown": "<type>"}` is an unknown value of that type, and
//! `{"$sensitive": <json>}` is the value carrying the sensitive mark.
//!
//! Size: about 810 lines of protocol and per-stream program cache; the rest are
//! unit tests.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::Arc;

use fnhcl_base::SourceMap;
use fnhcl_value::json::{Keep, from_json_text};
use fnhcl_value::{Key, Type, Value};

use crate::{EvalContext, Limits};

/// Answers one protocol line (nothing kept for the next one; a stream of
/// lines goes through one [`Lines`]).
pub fn process_line(line: &str) -> String {
    Lines::default().answer(line)
}

/// Answers a stream of protocol lines, keeping each expression text's
/// parsed and compiled form for the lines after it: test vectors often
/// ask the same expression of many variable sets (the expression
/// workload: 120 texts in 300 lines). The answers are the ones
/// [`process_line`] gives; only the work to reach them is shared.
#[derive(Default)]
pub struct Lines {
    programs: Programs,
}

impl Lines {
    /// Answers one protocol line.
    pub fn answer(&mut self, line: &str) -> String {
        if vars_as_read(line) {
            return self.answer_plain(line);
        }
        process_whole_line(line)
    }

    /// [`Lines::answer`] of a line whose variables are their own values
    /// ([`vars_as_read`]): the expression is parsed when the reader
    /// reaches `"vars"` (when `"expr"` comes before it, as the protocol's
    /// writers put it), and only the variables it names are read; the
    /// others are checked as the reader checks them (the same errors) and
    /// stand as `null`, for their names ("Did you mean"). `"expr"` after
    /// `"vars"` reads every variable; `"expr"` given twice with another
    /// text reads the whole line again.
    fn answer_plain(&mut self, line: &str) -> String {
        let mut prepared: Option<Prepared> = None;
        let programs = &mut self.programs;
        let parsed = fnhcl_value::json::from_json_text_sparse(line, "vars", &mut |read, name| {
            prepared
                .get_or_insert_with(|| Prepared::new(read, programs))
                .wants(name)
        });
        let (parsed, id, expr) = match line_parts(parsed) {
            Ok(parts) => parts,
            Err(answer) => return answer,
        };
        let empty = fnhcl_value::ObjMap::default();
        let vars = match parsed.get("vars") {
            None | Some(Value::Null(_)) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return error_line(id.as_deref(), "bad vars: not an object", None),
        };
        let program = match prepared {
            Some(Prepared::Program(p)) if *p.text == *expr => p,
            // No `"expr"` before the variables: every one of them was read.
            None | Some(Prepared::Everything) => self.programs.get(&expr),
            // Another text than the one whose names chose the variables.
            Some(Prepared::Program(_)) => return process_whole_line(line),
        };
        program.answer(id.as_deref(), &ObjVars(vars))
    }
}

/// What the variables of a line are read for: an expression's program
/// (only the variables it names), or every variable (no `"expr"` string
/// was read when the variables were reached).
enum Prepared {
    Program(Rc<Program>),
    Everything,
}

impl Prepared {
    /// The expression of the last `"expr"` string read so far.
    fn new(read: &[(fnhcl_value::Key, Value)], programs: &mut Programs) -> Prepared {
        match read.iter().rev().find(|(k, _)| &**k == "expr") {
            Some((_, Value::String(text))) => Prepared::Program(programs.get(text)),
            _ => Prepared::Everything,
        }
    }

    fn wants(&self, name: &str) -> Keep {
        let Prepared::Program(p) = self else {
            return Keep::All;
        };
        match p.names.binary_search_by(|(n, _)| (**n).cmp(name)) {
            Ok(at) => p.names[at].1.clone(),
            Err(_) => Keep::Nothing,
        }
    }
}

/// The programs of the expression texts seen so far, by text. Bounded:
/// when one more would pass [`Programs::MAX_COUNT`] programs or
/// [`Programs::MAX_TEXT`] bytes of text, the ones kept are dropped (a
/// stream of ever-new texts costs one parse each, as without the cache);
/// a text longer than [`Programs::MAX_ONE`] is never kept.
#[derive(Default)]
struct Programs {
    by_text: HashMap<Arc<str>, Rc<Program>>,
    text_bytes: usize,
}

impl Programs {
    const MAX_COUNT: usize = 1024;
    const MAX_TEXT: usize = 1 << 20;
    const MAX_ONE: usize = 64 << 10;

    fn get(&mut self, text: &Arc<str>) -> Rc<Program> {
        if let Some(p) = self.by_text.get(text) {
            return p.clone();
        }
        let program = Rc::new(Program::parse(text));
        if text.len() <= Self::MAX_ONE {
            if self.by_text.len() >= Self::MAX_COUNT
                || self.text_bytes + text.len() > Self::MAX_TEXT
            {
                self.by_text.clear();
                self.text_bytes = 0;
            }
            self.text_bytes += text.len();
            self.by_text.insert(text.clone(), program.clone());
        }
        program
    }
}

/// An expression parsed (file name `expr.hcl`, as the oracle) and
/// compiled, and the root names it can read.
struct Program {
    text: Arc<str>,
    sources: SourceMap,
    /// The compiled expression, or the parse diagnostics.
    parsed: Result<crate::Compiled, Vec<fnhcl_base::Diagnostic>>,
    /// Every variable name the expression holds (sorted), with how much
    /// of it is read ([`variable_reads`]); none when it does not parse
    /// (the parse error is the answer).
    names: Vec<(Arc<str>, Keep)>,
}

impl Program {
    /// Parses and compiles `text`. The compiled form costs less than it
    /// saves whenever a `for` body or a template runs more than a few
    /// times, even for one evaluation (the expression workload: 12.1 M
    /// fewer instructions for 300 lines reading every variable, 29.3 M
    /// fewer reading only those named, compile included;
    /// docs/notes/memory-and-jsonl.md).
    fn parse(text: &Arc<str>) -> Program {
        let mut sources = SourceMap::new();
        let file = sources.add("expr.hcl", text.clone());
        let (expr, diags) = fnhcl_syntax::parse_expr(&sources, file);
        let (parsed, names) = match expr {
            Some(e) if !diags.iter().any(fnhcl_base::Diagnostic::is_error) => {
                let names = variable_reads(&e);
                (Ok(crate::Compiled::new(e)), names)
            }
            _ => (Err(diags), Vec::new()),
        };
        Program {
            text: text.clone(),
            sources,
            parsed,
            names,
        }
    }

    fn answer(&self, id: Option<&str>, vars: &dyn crate::Variables) -> String {
        let limits = Limits::default();
        let ctx = EvalContext {
            vars,
            invoker: None,
            functions: true,
            limits: &limits,
        };
        match &self.parsed {
            Ok(compiled) => {
                let ev = crate::evaluate_compiled_with_sources(compiled, &ctx, &self.sources);
                answer_line(id, &ev, false, &self.sources)
            }
            Err(diagnostics) => {
                let ev = crate::Evaluated {
                    value: Value::dynamic_unknown(),
                    diagnostics: diagnostics.clone(),
                    steps: 0,
                    bytes: 0,
                };
                answer_line(id, &ev, true, &self.sources)
            }
        }
    }
}

/// Every name a variable expression of `e` holds (`for` variables
/// included, which is harmless), sorted and without repeats: a superset
/// of the root variables the evaluation can look up, each with how much
/// of it the reader must build ([`Keep`]):
/// - [`Keep::Members`] when every read of it names an attribute literally
///   (`v.a`, `v["a"]`, `lookup(v, "a", ...)`): an object variable gives
///   the same answers with only those attributes (a missing one is missing
///   either way, and nothing else of the object is looked at);
/// - [`Keep::Elements`] when it is only the collection of `for`s (`for x
///   in v`, in expressions and templates) whose element names `x` are read
///   by attribute names alone: the same, for each object element of an
///   array;
/// - [`Keep::All`] otherwise.
///
/// Reads are gathered by name, whatever binds it: a `for` variable that
/// shadows another name only adds reads to it (more is built, never
/// less), and a name iterated itself, or read whole anywhere, is read
/// whole.
fn variable_reads(e: &fnhcl_syntax::ast::Expr) -> Vec<(Arc<str>, Keep)> {
    use std::collections::{BTreeMap, BTreeSet};

    use fnhcl_syntax::ast::{Expr, ExprKind, ObjectKey, Template, TemplatePart};
    fn root(e: &Expr) -> Option<&Arc<str>> {
        match &e.kind {
            ExprKind::Variable(id) => Some(&id.name),
            _ => None,
        }
    }
    use crate::eval::ascii_literal as literal;
    #[derive(Default)]
    struct Reads<'e> {
        /// Names read whole.
        whole: BTreeSet<Arc<str>>,
        /// Names read by attribute, and the attributes.
        attrs: BTreeMap<Arc<str>, BTreeSet<Arc<str>>>,
        /// Names iterated by `for`s, and the names of their elements.
        iterated: BTreeMap<Arc<str>, BTreeSet<Arc<str>>>,
        /// A work list, not recursion: a long chain nests as deep as it
        /// is long.
        work: Vec<&'e Expr>,
        temps: Vec<&'e Template>,
    }
    impl<'e> Reads<'e> {
        fn attr(&mut self, v: &Arc<str>, a: &Arc<str>) {
            self.attrs.entry(v.clone()).or_default().insert(a.clone());
        }
        /// `for x in collection`: a variable collection is iterated, any
        /// other is an expression to walk.
        fn iterate(&mut self, collection: &'e Expr, x: &Arc<str>) {
            match root(collection) {
                Some(v) => {
                    self.iterated
                        .entry(v.clone())
                        .or_default()
                        .insert(x.clone());
                }
                None => self.work.push(collection),
            }
        }
        fn template(&mut self, t: &'e Template) {
            for p in &t.parts {
                match p {
                    TemplatePart::Literal(_) => {}
                    TemplatePart::Interpolation(x) => self.work.push(x),
                    TemplatePart::If(i) => {
                        self.work.push(&i.cond);
                        self.temps.push(&i.then);
                        self.temps.extend(i.otherwise.as_ref());
                    }
                    TemplatePart::For(f) => {
                        self.iterate(&f.collection, &f.value_var.name);
                        self.temps.push(&f.body);
                    }
                }
            }
        }
        /// The attributes `x` is read by, or `None` when it may be read
        /// whole.
        fn attrs_of(&self, x: &Arc<str>) -> Option<&BTreeSet<Arc<str>>> {
            if self.whole.contains(x) || self.iterated.contains_key(x) {
                return None;
            }
            static NONE: BTreeSet<Arc<str>> = BTreeSet::new();
            Some(self.attrs.get(x).unwrap_or(&NONE))
        }
    }
    let keys = |names: &BTreeSet<Arc<str>>| -> Arc<[Key]> { names.iter().cloned().collect() };
    let mut r = Reads {
        work: vec![e],
        ..Reads::default()
    };
    while !r.work.is_empty() || !r.temps.is_empty() {
        if let Some(t) = r.temps.pop() {
            r.template(t);
            continue;
        }
        let Some(e) = r.work.pop() else { break };
        match &e.kind {
            ExprKind::Null | ExprKind::Bool(_) | ExprKind::Number(_) | ExprKind::SplatItem => {}
            ExprKind::Variable(id) => {
                r.whole.insert(id.name.clone());
            }
            ExprKind::Template(t) => r.temps.push(t),
            ExprKind::Tuple(items) => r.work.extend(items),
            ExprKind::Object(items) => {
                for it in items {
                    if let ObjectKey::Expr(k) = &it.key {
                        r.work.push(k);
                    }
                    r.work.push(&it.value);
                }
            }
            ExprKind::GetAttr(src, name) => match root(src) {
                Some(v) => r.attr(v, &name.name),
                None => r.work.push(src),
            },
            ExprKind::Index(src, k) => match (root(src), literal(k)) {
                (Some(v), Some(name)) => r.attr(v, name),
                _ => r.work.extend([&**src, &**k]),
            },
            ExprKind::Splat { source, each, .. } => r.work.extend([&**source, &**each]),
            ExprKind::FuncCall {
                name,
                args,
                expand_final,
            } => match args.as_slice() {
                // The standard `lookup` (the protocol has no other
                // functions): only the named attribute of an object.
                [map, key, rest @ ..] if &*name.name == "lookup" && !*expand_final => {
                    match (root(map), literal(key)) {
                        (Some(v), Some(attr)) => {
                            r.attr(v, attr);
                            r.work.extend(rest);
                        }
                        _ => r.work.extend(args),
                    }
                }
                _ => r.work.extend(args),
            },
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => r.work.extend([&**cond, &**then, &**otherwise]),
            ExprKind::Unary(_, x) | ExprKind::Parens(x) => r.work.push(x),
            ExprKind::Binary(_, a, b) => r.work.extend([&**a, &**b]),
            ExprKind::For(f) => {
                r.iterate(&f.collection, &f.value_var.name);
                r.work.extend(f.key_expr.as_ref());
                r.work.push(&f.value_expr);
                r.work.extend(f.cond.as_ref());
            }
        }
    }
    let mut names: BTreeSet<&Arc<str>> = r.whole.iter().collect();
    names.extend(r.attrs.keys());
    names.extend(r.iterated.keys());
    names
        .into_iter()
        .map(|n| {
            let keep = if r.whole.contains(n) {
                Keep::All
            } else if let Some(xs) = r.iterated.get(n) {
                let mut union = BTreeSet::new();
                let mut all = r.attrs.contains_key(n);
                for x in xs {
                    match r.attrs_of(x) {
                        Some(a) => union.extend(a.iter().cloned()),
                        None => all = true,
                    }
                }
                if all {
                    Keep::All
                } else {
                    Keep::Elements(keys(&union))
                }
            } else {
                r.attrs.get(n).map_or(Keep::All, |a| Keep::Members(keys(a)))
            };
            (n.clone(), keep)
        })
        .collect()
}

/// The variables of a line as read (`vars_as_read`).
struct ObjVars<'a>(&'a fnhcl_value::ObjMap);

impl crate::Variables for ObjVars<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        self.0.get(name).cloned()
    }
    fn names(&self) -> Vec<String> {
        self.0.iter().map(|(k, _)| k.to_string()).collect()
    }
}

/// A line read as JSON: its object, its `"id"` (if a string) and its
/// `"expr"`, or the answer line that says what is wrong with it.
fn line_parts(
    parsed: Result<Value, String>,
) -> Result<(fnhcl_value::ObjMap, Option<String>, Arc<str>), String> {
    let parsed = match parsed {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err(error_line(None, "bad input line: not a JSON object", None)),
        Err(e) => return Err(error_line(None, &format!("bad input line: {e}"), None)),
    };
    let id = match parsed.get("id") {
        Some(Value::String(s)) => Some(s.to_string()),
        _ => None,
    };
    let expr = match parsed.get("expr") {
        Some(Value::String(s)) => s.clone(),
        _ => {
            let msg = "bad input line: missing \"expr\"";
            return Err(error_line(id.as_deref(), msg, None));
        }
    };
    Ok((parsed, id, expr))
}

/// [`process_line`] reading the whole line.
fn process_whole_line(line: &str) -> String {
    let (parsed, id, expr) = match line_parts(from_json_text(line)) {
        Ok(parts) => parts,
        Err(answer) => return answer,
    };
    let vars = match parsed.get("vars") {
        None | Some(Value::Null(_)) => BTreeMap::new(),
        // Nothing for `var_value` to change: the values as read.
        Some(Value::Object(m)) if vars_as_read(line) => {
            m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
        }
        Some(Value::Object(m)) => match vars_of(m) {
            Ok(vars) => vars,
            Err(e) => return error_line(id.as_deref(), &format!("bad vars: {e}"), None),
        },
        Some(_) => return error_line(id.as_deref(), "bad vars: not an object", None),
    };
    evaluate_line(id.as_deref(), &expr, &vars)
}

/// Whether the values read from `line` are their own variable values
/// ([`var_value`] would return each unchanged), known from the text alone
/// in a few fast passes instead of a walk over every value (tens of KB per
/// line): an ASCII text without `\u` escapes reads as ASCII strings only
/// (NFC changes none), and without those escapes an object key
/// `$unknown` or `$sensitive` can only be written as itself. (Nesting is
/// not a concern: the reader stops at `MAX_JSON_DEPTH`, below
/// [`var_value`]'s limit.)
fn vars_as_read(line: &str) -> bool {
    const _: () = assert!(fnhcl_value::json::MAX_JSON_DEPTH < MAX_VAR_DEPTH);
    // `memchr`'s searches (many bytes at a time), and the keys looked for
    // only at the `$`s, which are rare.
    let b = line.as_bytes();
    line.is_ascii()
        && memchr::memmem::find(b, b"\\u").is_none()
        && memchr::memchr_iter(b'$', b).all(|i| {
            let key = &b[i.saturating_sub(1)..];
            !(key.starts_with(b"\"$unknown\"") || key.starts_with(b"\"$sensitive\""))
        })
}

/// Evaluates `expr` (file name `expr.hcl`, as the oracle) and formats the
/// answer line.
pub fn evaluate_line(id: Option<&str>, expr: &str, vars: &BTreeMap<String, Value>) -> String {
    Program::parse(&Arc::from(expr)).answer(id, vars)
}

fn answer_line(
    id: Option<&str>,
    ev: &crate::Evaluated,
    parse_failed: bool,
    sources: &SourceMap,
) -> String {
    if ev.has_errors() {
        let text = diagnostics_error(&ev.diagnostics, sources);
        let phase = if parse_failed { "parse" } else { "eval" };
        return error_line(id, &text, Some(phase));
    }
    result_line(id, &ev.value)
}

/// HCL's `Diagnostics.Error()`: the first error's `range: summary; detail`,
/// then `, and N other diagnostic(s)`.
pub fn diagnostics_error(diags: &[fnhcl_base::Diagnostic], sources: &SourceMap) -> String {
    let mut sorted: Vec<&fnhcl_base::Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| !d.is_error());
    match sorted.as_slice() {
        [] => "no diagnostics".to_owned(),
        [one] => one.to_hcl_string(sources),
        [first, rest @ ..] => format!(
            "{}, and {} other diagnostic(s)",
            first.to_hcl_string(sources),
            rest.len()
        ),
    }
}

fn result_line(id: Option<&str>, v: &Value) -> String {
    let mut out = String::from("{");
    push_id(&mut out, id);
    out.push_str("\"type\":");
    let mut ty = String::new();
    type_text(&mut ty, v);
    fnhcl_value::json::write_json_string_plain(&mut out, &ty);
    if v.is_marked_deep() {
        out.push_str(",\"sensitive\":true");
    }
    if !v.is_wholly_known() {
        out.push_str(",\"unknown\":true}");
        return out;
    }
    let body = match fnhcl_value::json::to_json_text_plain(v) {
        Ok(body) => body,
        Err(e) => {
            let mut out = error_line(id, &format!("marshal: {e}"), None);
            out.pop();
            let _ = write!(out, ",\"type\":{}}}", json_string(&v.type_of().to_string()));
            return out;
        }
    };
    let _ = write!(out, ",\"value\":{body}}}");
    out
}

/// `v.type_of().to_string()`, written from the value: known objects,
/// tuples and primitives directly (a result's type is as big as the
/// result, and building the `Type` to print it was ~4% of the workload),
/// anything else through its `Type`.
fn type_text(out: &mut String, v: &Value) {
    match v {
        Value::Object(m) => {
            out.push_str("object({");
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(": ");
                type_text(out, x);
            }
            out.push_str("})");
        }
        Value::Tuple(items) => {
            out.push_str("tuple([");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                type_text(out, x);
            }
            out.push_str("])");
        }
        Value::String(_) => out.push_str("string"),
        Value::Number(_) => out.push_str("number"),
        Value::Bool(_) => out.push_str("bool"),
        _ => {
            let _ = write!(out, "{}", v.type_of());
        }
    }
}

fn push_id(out: &mut String, id: Option<&str>) {
    if let Some(id) = id {
        let _ = write!(out, "\"id\":{},", json_string(id));
    }
}

fn error_line(id: Option<&str>, msg: &str, phase: Option<&str>) -> String {
    let mut out = String::from("{");
    push_id(&mut out, id);
    let _ = write!(out, "\"error\":{}", json_string(msg));
    if let Some(p) = phase {
        let _ = write!(out, ",\"phase\":{}", json_string(p));
    }
    out.push('}');
    out
}

/// A JSON string literal (no HTML-safe escapes).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    fnhcl_value::json::write_json_string_plain(&mut out, s);
    out
}

/// The variables of a JSON object text (`{"name": value, ...}`), each
/// converted by [`var_value`].
pub fn parse_vars(text: &str) -> Result<BTreeMap<String, Value>, String> {
    match from_json_text(text)? {
        Value::Object(m) => vars_of(&m),
        _ => Err("not an object".into()),
    }
}

fn vars_of(m: &fnhcl_value::ObjMap) -> Result<BTreeMap<String, Value>, String> {
    m.iter()
        .map(|(k, v)| Ok((k.to_string(), var_value(v, 0)?)))
        .collect()
}

/// A value read by [`from_json_text`] (cty's implied types, exact
/// numbers) made a variable: strings NFC-normalized, plus the `$unknown`
/// and `$sensitive` test conventions.
pub fn var_value(v: &Value, depth: usize) -> Result<Value, String> {
    Ok(converted(v, depth)?.unwrap_or_else(|| v.clone()))
}

/// [`var_value`], or `None` when `v` is its own variable value already (no
/// string to normalize, no test convention inside): the caller keeps `v`,
/// sharing its strings and collections instead of copying every one of
/// them (variables of tens of KB per line, mostly ASCII).
fn converted(v: &Value, depth: usize) -> Result<Option<Value>, String> {
    if depth > MAX_VAR_DEPTH {
        return Err("value too deeply nested".into());
    }
    Ok(match v {
        Value::String(s) => match fnhcl_value::nfc(s) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(normalized) => Some(Value::string(normalized)),
        },
        Value::Tuple(items) => {
            let mut out: Option<Vec<Value>> = None;
            for (i, x) in items.iter().enumerate() {
                match (converted(x, depth + 1)?, &mut out) {
                    (Some(c), Some(out)) => out.push(c),
                    (Some(c), None) => {
                        let mut o = Vec::with_capacity(items.len());
                        o.extend_from_slice(&items[..i]);
                        o.push(c);
                        out = Some(o);
                    }
                    (None, Some(out)) => out.push(x.clone()),
                    (None, None) => {}
                }
            }
            out.map(Value::tuple)
        }
        Value::Object(m) => {
            if m.len() == 1
                && let Some(Value::String(t)) = m.get("$unknown")
            {
                return Ok(Some(Value::Unknown(parse_type(t)?)));
            }
            if m.len() == 1
                && let Some(inner) = m.get("$sensitive")
            {
                return Ok(Some(var_value(inner, depth + 1)?.mark()));
            }
            // In key order: each entry is a push.
            let mut out: Option<Vec<(fnhcl_value::Key, Value)>> = None;
            for (i, (k, x)) in m.iter().enumerate() {
                match (converted(x, depth + 1)?, &mut out) {
                    (Some(c), Some(out)) => {
                        out.push((k.clone(), c));
                    }
                    (Some(c), None) => {
                        let mut o = Vec::with_capacity(m.len());
                        for (k, x) in m.iter().take(i) {
                            o.push((k.clone(), x.clone()));
                        }
                        o.push((k.clone(), c));
                        out = Some(o);
                    }
                    (None, Some(out)) => {
                        out.push((k.clone(), x.clone()));
                    }
                    (None, None) => {}
                }
            }
            out.map(|o| Value::object(fnhcl_value::ObjMap::from_sorted(o)))
        }
        _ => None,
    })
}

/// How deep [`var_value`] goes.
const MAX_VAR_DEPTH: usize = 1000;

/// Parses a type in `type()` syntax: `string`, `list(number)`,
/// `tuple([string, bool])`, `object({a: number})`, `dynamic`.
pub fn parse_type(s: &str) -> Result<Type, String> {
    let mut p = TypeParser {
        s: s.as_bytes(),
        i: 0,
        depth: 0,
    };
    let t = p.ty()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("bad type {s:?}"));
    }
    Ok(t)
}

struct TypeParser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl TypeParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("bad type: expected {:?} at {}", c as char, self.i))
        }
    }
    fn word(&mut self) -> String {
        self.ws();
        let st = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'_'
                || self.s[self.i] == b'-')
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }
    fn ty(&mut self) -> Result<Type, String> {
        self.depth += 1;
        if self.depth > 100 {
            return Err("type too deeply nested".into());
        }
        let w = self.word();
        let t = match w.as_str() {
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "dynamic" | "any" => Type::Dynamic,
            "list" | "set" | "map" => {
                self.eat(b'(')?;
                let e = self.ty()?;
                self.eat(b')')?;
                match w.as_str() {
                    "list" => Type::list(e),
                    "set" => Type::set(e),
                    _ => Type::map(e),
                }
            }
            "tuple" => {
                self.eat(b'(')?;
                self.eat(b'[')?;
                let mut es = Vec::new();
                self.ws();
                if self.s.get(self.i) != Some(&b']') {
                    loop {
                        es.push(self.ty()?);
                        self.ws();
                        if self.s.get(self.i) == Some(&b',') {
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                }
                self.eat(b']')?;
                self.eat(b')')?;
                Type::tuple(es)
            }
            "object" => {
                self.eat(b'(')?;
                self.eat(b'{')?;
                let mut attrs = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) != Some(&b'}') {
                    loop {
                        let name = self.word();
                        self.eat(b':')?;
                        let t = self.ty()?;
                        attrs.insert(Arc::from(name.as_str()), t);
                        self.ws();
                        if self.s.get(self.i) == Some(&b',') {
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                }
                self.eat(b'}')?;
                self.eat(b')')?;
                Type::object(attrs)
            }
            other => return Err(format!("unknown type {other:?}")),
        };
        self.depth -= 1;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(json: &str) -> Value {
        var_value(&from_json_text(json).expect("json"), 0).expect("var")
    }

    fn process_plain_line(line: &str) -> String {
        Lines::default().answer_plain(line)
    }

    /// One [`Lines`] over a stream answers each line as a fresh one does:
    /// texts repeated with other variables, parse errors repeated, the
    /// same text after `"vars"`, and more texts than it keeps.
    #[test]
    fn a_stream_answers_as_lines_on_their_own() {
        let mut stream = Lines::default();
        let mut lines: Vec<String> = Vec::new();
        for round in 0..3 {
            for (id, expr) in [
                ("a", r#"[for i in items : i.n * k]"#),
                ("b", r#"k +"#),
                ("c", r#"itemz"#),
                ("d", r#""${k}-${length(items)}""#),
            ] {
                let expr = expr.replace('"', "\\\"");
                lines.push(format!(
                    r#"{{"id":"{id}{round}","expr":"{expr}","vars":{{"items":[{{"n":{round}}}],"k":{round}}}}}"#
                ));
                lines.push(format!(
                    r#"{{"id":"{id}{round}v","vars":{{"items":[{{"n":2}}],"k":"{round}"}},"expr":"{expr}"}}"#
                ));
            }
        }
        for n in 0..Programs::MAX_COUNT + 10 {
            lines.push(format!(r#"{{"expr":"k + {n}","vars":{{"k":1}}}}"#));
        }
        lines.extend(lines.clone().into_iter().take(24));
        for line in &lines {
            assert_eq!(stream.answer(line), process_line(line), "{line}");
            assert!(stream.programs.by_text.len() <= Programs::MAX_COUNT);
        }
        assert!(
            stream.answer(&lines[1]).contains("\"value\":[0]"),
            "{}",
            lines[1]
        );
        assert!(stream.answer(&lines[2]).contains("\"phase\":\"parse\""));
    }

    /// The fast path of [`process_line`] answers as [`var_value`] would:
    /// lines that need a change take the walk, whatever the spelling.
    #[test]
    fn lines_read_as_they_are_only_when_nothing_changes() {
        let cases = [
            (
                r#"{"id":"a","expr":"x","vars":{"x":{"$unknown":"string"}}}"#,
                false,
            ),
            (
                r#"{"id":"b","expr":"x","vars":{"x":{"\u0024unknown":"string"}}}"#,
                false,
            ),
            (
                r#"{"id":"c","expr":"x","vars":{"x":{"$sensitive":"v"}}}"#,
                false,
            ),
            (r#"{"id":"d","expr":"x","vars":{"x":"e\u0301"}}"#, false),
            (
                "{\"id\":\"e\",\"expr\":\"x\",\"vars\":{\"x\":\"e\u{301}\"}}",
                false,
            ),
            (
                r#"{"id":"f","expr":"\"${x}$\"","vars":{"x":{"a":["b",1,{"$c":"d"}]}}}"#,
                true,
            ),
        ];
        for (line, plain) in cases {
            assert_eq!(vars_as_read(line), plain, "{line}");
            let Ok(Value::Object(m)) = from_json_text(line) else {
                panic!("{line}");
            };
            let Some(Value::Object(vars)) = m.get("vars") else {
                panic!("{line}");
            };
            let expr = match m.get("expr") {
                Some(Value::String(s)) => s.to_string(),
                _ => panic!("{line}"),
            };
            let walked = evaluate_line(None, &expr, &vars_of(vars).expect("vars"));
            let answer = process_line(line);
            assert!(
                answer.ends_with(&walked[1..]),
                "{line}: {answer} vs {walked}"
            );
        }
        // What the walk changes shows in the answers.
        assert!(process_line(cases[1].0).contains(r#""unknown":true"#));
        assert!(process_line(cases[4].0).contains("\u{e9}"));
    }

    /// Reading only the variables an expression names answers as reading
    /// them all: suggestions name the skipped ones, errors in skipped
    /// text are the reader's, `"expr"` after `"vars"` or given twice.
    #[test]
    fn sparse_lines_answer_as_whole_lines() {
        let chain = format!("x{}", ".a".repeat(1500));
        let long = format!(r#"{{"id":"l","expr":"{chain}","vars":{{"x":1,"y":2}}}}"#);
        let lines = [
            r#"{"id":"a","expr":"[for i in items : i.n * k]","vars":{"items":[{"n":1},{"n":2}],"k":3,"other":{"big":[1,2,3]}}}"#,
            r#"{"id":"b","expr":"itemz","vars":{"items":[1],"k":3}}"#,
            r#"{"id":"c","expr":"k","vars":{"items":[1,],"k":3}}"#,
            r#"{"id":"d","expr":"k","vars":{"items":[1e999999999999999999999],"k":3}}"#,
            r#"{"id":"e","vars":{"items":[1],"k":3},"expr":"items[0] + k"}"#,
            r#"{"id":"f","expr":"items","vars":{"items":[1],"k":3},"expr":"k"}"#,
            r#"{"id":"g","expr":"k +","vars":{"items":[1],"k":3}}"#,
            r#"{"id":"h","expr":"k +","vars":{"items":[1}}"#,
            r#"{"id":"i","expr":""%{for v in items}${v}${k}%{endfor}"","vars":{"items":[1,2],"k":"z","q":true}}"#,
            r#"{"id":"j","expr":"{ (k) = try(nope, q) }","vars":{"k":"z","q":true,"r":null}}"#,
            r#"{"id":"k","expr":"k","vars":{}}"#,
            r#"{"id":"m","expr":"k","vars":[1]}"#,
            r#"{"id":"n","expr":"k"}"#,
            r#"{"id":"o","expr":"k","vars":{"k":1},"vars":{"z":2}}"#,
            r#"{"id":"p","expr":"z","vars":{"k":1},"expr":"k","vars":{"z":2}}"#,
            &long,
        ];
        for line in lines {
            assert!(vars_as_read(line), "{line}");
            assert_eq!(process_plain_line(line), process_whole_line(line), "{line}");
        }
        assert!(process_plain_line(lines[1]).contains("Did you mean"));
        assert!(process_plain_line(lines[2]).contains("bad input line"));
    }

    /// A variable read only by literal attribute names, or only iterated
    /// by `for`s whose elements are read so, is read with those
    /// attributes alone, and answers as read whole: found, missing (with
    /// and without a default), of mixed types, not an object, not an
    /// array, shadowed by a `for` variable, read whole elsewhere in the
    /// expression.
    #[test]
    fn variables_read_by_name_answer_as_whole_lines() {
        let t = r#"{"a":"x","b":[1,{"c":2}],"n":null,"a\"q":4,"a":"y","m":{"k":true},"h\n":5}"#;
        let l = r#"[{"a":1,"b":{"c":2}},{"a":"x","b":[{"c":1}]},3,{"b":[]},{"a":null,"a":5,"z":{"q":1}},[{"a":1}]]"#;
        let exprs = [
            r#"lookup(t, "a", "none")"#,
            r#"lookup(t, "zz", "none")"#,
            r#"lookup(t, "zz", 7)"#,
            r#"lookup(t, "zz")"#,
            r#"lookup(t, "b", [])"#,
            r#"lookup(t, "n", "d")"#,
            r#"[t.a, t.b[1].c, t["m"].k, t["a\"q"]]"#,
            r#"t.zz"#,
            r#"t["zz"]"#,
            r#""${t.a}-${lookup(t, "m", {}).k}""#,
            r#"lookup(t, "zz", t.a)"#,
            r#"[for t in [{zz = 1}] : t.zz]"#,
            r#"[for k, v in t : k if t.a == "y"]"#,
            r#"[length(t), t.a]"#,
            r#"lookup(t, ["a"]...)"#,
            r#"t.*"#,
            r#"lookup(t, "A", "none")"#,
            r#"lookup(t, "a", 1, 2)"#,
            r#"lookup(t, "zz", null)"#,
            "lookup(t, <<EOT\nh\nEOT\n, 0) + lookup(t, <<-EOT\n  h\n  EOT\n, 0)",
            r#"{ x = t.a, y = lookup(u, "p", 0), z = u.q }"#,
            r#"[for e in l : try(e.a, "none")]"#,
            r#"[for e in l : e.a]"#,
            r#"[for e in l : lookup(e, "a", "none")]"#,
            r#"[for i, e in l : "${i}:${try(e.b.c, "-")}"]"#,
            r#"{for e in l : try(e.a, "k") => e...}"#,
            r#""%{ for e in l }${try(e.a, "")};%{ endfor }""#,
            r#"[for e in l : try([for f in e : f], [])]"#,
            r#"[for e in l : try(length(e), -1)]"#,
            r#"[for e in l : e.b if can(e.a)]"#,
            r#"[[for e in l : try(e.a, 0)], length(l)]"#,
            r#"concat([for e in l : try(e.a, 0)], [for e in u : try(e.p, 1)])"#,
            r#"[for l in l : try(l.a, 0)]"#,
            r#"[for e in l : try([for e in e.b : e], [])]"#,
            r#"[for x in t : try(x.k, 0)]"#,
            r#"[for e in u : try(e.q[0], e.p, 0)]"#,
        ];
        for u in [
            r#"{"p":1,"q":[2]}"#,
            "[1]",
            r#""s""#,
            "null",
            "{}",
            r#"[{"p":1,"q":[2]},{"q":{"0":3}},[]]"#,
        ] {
            for e in exprs {
                let line = format!(
                    r#"{{"id":"v","expr":{},"vars":{{"t":{t},"u":{u},"l":{l},"w":1}}}}"#,
                    json_string(e)
                );
                assert!(vars_as_read(&line), "{line}");
                assert_eq!(
                    process_plain_line(&line),
                    process_whole_line(&line),
                    "{line}"
                );
            }
        }
        let reads = |e: &str| {
            let mut sources = SourceMap::new();
            let file = sources.add("expr.hcl", Arc::from(e));
            let (expr, _) = fnhcl_syntax::parse_expr(&sources, file);
            variable_reads(&expr.expect("parses"))
                .into_iter()
                .map(|(n, keep)| (n.to_string(), keep))
                .collect::<Vec<_>>()
        };
        let keys = |v: &[&str]| -> Arc<[Key]> { v.iter().map(|&s| Key::from(s)).collect() };
        let named = |n: &str, keep: Keep| (n.to_owned(), keep);
        assert_eq!(
            reads(r#"[lookup(t, "b", t.a), t["c"], u, u.x, (w).y]"#),
            [
                named("t", Keep::Members(keys(&["a", "b", "c"]))),
                named("u", Keep::All),
                named("w", Keep::All),
            ]
        );
        assert_eq!(
            reads(r#"lookup(t, k, 1) + lookup(t, "${k}", 1) + lookup(s, "a")"#),
            [
                named("k", Keep::All),
                named("s", Keep::Members(keys(&["a"]))),
                named("t", Keep::All),
            ]
        );
        assert_eq!(
            reads(r#""%{ for e in l }${e.a}%{ endfor }${[for e in l : e.b if e.c]}""#),
            [
                named("e", Keep::Members(keys(&["a", "b", "c"]))),
                named("l", Keep::Elements(keys(&["a", "b", "c"]))),
            ]
        );
        // An element iterated in turn, or read whole, reads the collection
        // whole; a name both iterated and read by name too.
        assert_eq!(
            reads(r#"[for e in l : [for f in e : f.x]] + [for g in m : g] + [for n in n : n.a]"#),
            [
                named("e", Keep::Elements(keys(&["x"]))),
                named("f", Keep::Members(keys(&["x"]))),
                named("g", Keep::All),
                named("l", Keep::All),
                named("m", Keep::All),
                named("n", Keep::All),
            ]
        );
    }

    /// A line that is not an object, or has no `"expr"`, is answered with
    /// what is wrong, by both readers alike.
    #[test]
    fn malformed_lines_say_what_is_wrong() {
        let cases = [
            ("[1]", r#"{"error":"bad input line: not a JSON object"}"#),
            (
                r#"{"id":"a","vars":{}}"#,
                r#"{"id":"a","error":"bad input line: missing \"expr\""}"#,
            ),
            (
                r#"{"id":"b","expr":1}"#,
                r#"{"id":"b","error":"bad input line: missing \"expr\""}"#,
            ),
        ];
        for (line, answer) in cases {
            assert_eq!(process_plain_line(line), answer, "{line}");
            assert_eq!(process_whole_line(line), answer, "{line}");
        }
        for line in ["{", r#"{"expr":"1""#] {
            assert!(process_plain_line(line).starts_with(r#"{"error":"bad input line: "#));
            assert_eq!(process_plain_line(line), process_whole_line(line));
        }
    }

    /// The one pass of `vars_as_read` answers as the plain checks.
    #[test]
    fn vars_as_read_agrees_with_the_plain_checks() {
        let plain = |l: &str| {
            l.is_ascii()
                && !l.contains("\\u")
                && !l.contains("\"$unknown\"")
                && !l.contains("\"$sensitive\"")
        };
        let parts = [
            "a",
            "\\",
            "u",
            "$",
            "\"",
            "unknown",
            "sensitive",
            "\u{e9}",
            "$unknown\"",
            "x\"$",
        ];
        let mut lines = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for l in &lines {
                for p in parts {
                    next.push(format!("{l}{p}"));
                }
            }
            lines.extend(next);
        }
        for l in &lines {
            assert_eq!(vars_as_read(l), plain(l), "{l:?}");
        }
    }

    /// The type text written from a value is its type's.
    #[test]
    fn type_text_is_the_types_display() {
        let vals = [
            r#"{"a": [1, "x", true, null, {"b": []}], "c d": {}, "e": {"$unknown": "list(string)"}}"#,
            r#"[{"$sensitive": {"k": [1]}}, {"$unknown": "object({a: map(number)})"}, []]"#,
            r#""s""#,
            r#"{"\"q\"": 1, "é": "e\u0301"}"#,
        ];
        for json in vals {
            let v = var(json);
            let mut text = String::new();
            type_text(&mut text, &v);
            assert_eq!(text, v.type_of().to_string(), "{json}");
        }
        let set = Value::list(Type::Number, vec![Value::int(1)]);
        let mut text = String::new();
        type_text(&mut text, &Value::tuple(vec![set.clone(), Value::null()]));
        assert_eq!(
            text,
            Value::tuple(vec![set, Value::null()]).type_of().to_string()
        );
    }

    #[test]
    fn unchanged_variables_are_shared_not_copied() {
        let v = from_json_text(r#"{"a": ["x", 1, {"b": "y"}], "c": "z"}"#).expect("json");
        let out = var_value(&v, 0).expect("var");
        let (Value::Object(a), Value::Object(b)) = (&v, &out) else {
            panic!("objects");
        };
        assert!(a.ptr_eq(b));
    }

    #[test]
    fn conventions_and_normalization_deep_inside() {
        // After unchanged siblings: the copy keeps them, in order.
        let v = var(r#"{"a": [1, "x", {"$sensitive": "s"}, 2], "b": "e\u0301", "c": 3}"#);
        let Value::Object(m) = &v else {
            panic!("object")
        };
        let Some(Value::Tuple(items)) = m.get("a") else {
            panic!("tuple")
        };
        assert_eq!(items.len(), 4);
        assert!(matches!(&items[2], Value::Marked(_)));
        assert!(matches!(&items[3], Value::Number(_)));
        assert!(matches!(m.get("b"), Some(Value::String(s)) if &**s == "\u{e9}"));
        assert_eq!(m.len(), 3);
        let u = var(r#"{"z": 1, "u": {"$unknown": "list(string)"}}"#);
        let Value::Object(m) = &u else {
            panic!("object")
        };
        assert!(matches!(m.get("u"), Some(Value::Unknown(_))));
        assert!(matches!(m.get("z"), Some(Value::Number(_))));
    }
}
