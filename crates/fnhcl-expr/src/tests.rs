//! API-level behaviour: values despite errors, invoke, function switches,
//! try/can with unknowns, diagnostic ranges.

use std::collections::BTreeMap;

use fnhcl_base::SourceMap;
use fnhcl_value::{Type, Value};

use crate::jsonl::parse_vars;
use crate::{EvalContext, Evaluated, Invoker, Limits};

fn vars(json: &str) -> BTreeMap<String, Value> {
    parse_vars(json).expect("vars")
}

fn run(
    src: &str,
    vars: &BTreeMap<String, Value>,
    invoker: Option<&dyn Invoker>,
    functions: bool,
) -> (Evaluated, SourceMap) {
    let limits = Limits::default();
    let ctx = EvalContext {
        vars,
        invoker,
        functions,
        limits: &limits,
    };
    let mut sm = SourceMap::new();
    let (ev, parse_failed) = crate::eval_source(&mut sm, "main.hcl", src, &ctx);
    assert!(!parse_failed, "{src}: {:?}", ev.diagnostics);
    (ev, sm)
}

fn errors(ev: &Evaluated, sm: &SourceMap) -> Vec<String> {
    ev.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.to_hcl_string(sm))
        .collect()
}

#[test]
fn object_with_failing_value_is_known_with_unknown_part() {
    let v = vars(r#"{"req": {"y": 1}}"#);
    let (ev, sm) = run("{a = req.x, b = 1}", &v, None, true);
    let Value::Object(attrs) = &ev.value else {
        panic!("{:?}", ev.value)
    };
    assert_eq!(attrs["a"], Value::dynamic_unknown());
    assert_eq!(attrs["b"], Value::int(1));
    assert_eq!(
        errors(&ev, &sm),
        vec![
            "main.hcl:1,9-11: Unsupported attribute \"x\"; This object does not have an attribute named \"x\"."
        ]
    );
    // An error in a key makes the whole object unknown.
    let (ev, _) = run("{(req.x) = 1, b = 2}", &v, None, true);
    assert_eq!(ev.value, Value::dynamic_unknown());
}

#[test]
fn attribute_error_range_is_the_step() {
    let v = vars(r#"{"self": {"resource": {"status": null}}}"#);
    let (ev, sm) = run("self.resource.status.atProvider.arn", &v, None, true);
    assert_eq!(
        errors(&ev, &sm),
        vec![
            "main.hcl:1,21-32: Attempt to get attribute from null value; This value is null, so it does not have any attributes."
        ]
    );
    let d = &ev.diagnostics[0];
    // The context is the whole traversal (HCL's diagnostic Expression).
    assert_eq!(
        sm.slice(d.context.unwrap()),
        "self.resource.status.atProvider.arn"
    );
    let (ev, sm) = run("[nosuch.a.b, upper(self.x).y]", &v, None, true);
    let ctx: Vec<&str> = ev
        .diagnostics
        .iter()
        .map(|d| sm.slice(d.context.unwrap()))
        .collect();
    assert_eq!(ctx, vec!["nosuch.a.b", "self.x"]);
}

struct Fns;
impl Invoker for Fns {
    fn invoke(&self, name: &str, args: Value) -> Result<Value, String> {
        match name {
            "double" => {
                let n = args
                    .as_entries()
                    .and_then(|m| m.get("n").cloned())
                    .ok_or("missing n")?;
                let n = n.as_number().ok_or("n must be a number")?.clone();
                Ok(Value::Number(n.add(&n).map_err(|e| e.to_string())?))
            }
            other => Err(format!("user function '{other}' not found")),
        }
    }
}

#[test]
fn invoke_calls_user_functions() {
    let v = BTreeMap::new();
    let (ev, _) = run("invoke(\"double\", {n = 21})", &v, Some(&Fns), true);
    assert_eq!(ev.value, Value::int(42));
    let (ev, sm) = run("invoke(\"nope\", {})", &v, Some(&Fns), true);
    assert_eq!(
        errors(&ev, &sm),
        vec![
            "main.hcl:1,1-8: Error in function call to user function \"nope\"; Call to function \"invoke\" failed: user function 'nope' not found."
        ]
    );
    // An unknown arguments object: no call, unknown result. A partially
    // unknown one is passed through.
    let u = vars(r#"{"u": {"$unknown": "object({n: number})"}, "n": {"$unknown": "number"}}"#);
    let (ev, _) = run("invoke(\"nope\", u)", &u, Some(&Fns), true);
    assert!(!ev.has_errors());
    assert_eq!(ev.value, Value::dynamic_unknown());
    let (ev, _) = run("invoke(\"nope\", {n = n})", &u, Some(&Fns), true);
    assert!(ev.has_errors());
    let (ev, sm) = run("invoke(\"double\")", &v, Some(&Fns), true);
    assert_eq!(
        errors(&ev, &sm),
        vec![
            "main.hcl:1,16-17: Not enough function arguments for \"invoke\"; Function \"invoke\" expects 2 argument(s). Missing value for \"args\"."
        ]
    );
    // Without an invoker, invoke does not exist.
    let (ev, sm) = run("invoke(\"double\", {n = 1})", &v, None, true);
    assert!(errors(&ev, &sm)[0].contains("Call to unknown function"));
}

#[test]
fn functions_can_be_switched_off() {
    let v = BTreeMap::new();
    let (ev, sm) = run("upper(\"a\")", &v, None, false);
    assert_eq!(
        errors(&ev, &sm),
        vec!["main.hcl:1,1-11: Function calls not allowed; Functions may not be called here."]
    );
}

#[test]
fn try_and_can_with_unknowns() {
    let v =
        vars(r#"{"u": {"$unknown": "string"}, "o": {"a": 1}, "p": [1, {"$unknown": "number"}]}"#);
    let cases = [
        ("try(o.b, \"d\")", Value::string("d")),
        ("try(o.a, \"d\")", Value::int(1)),
        ("can(o.b)", Value::FALSE),
        ("can(o.a)", Value::TRUE),
        ("can(u)", Value::Unknown(Type::Bool)),
        ("can(p[0])", Value::TRUE),
        ("can(p[1])", Value::Unknown(Type::Bool)),
        ("try(u, \"d\")", Value::dynamic_unknown()),
        ("try(nosuch, u, 1)", Value::dynamic_unknown()),
        ("can(nosuch)", Value::FALSE),
    ];
    for (src, want) in cases {
        let (ev, _) = run(src, &v, None, true);
        assert!(!ev.has_errors(), "{src}: {:?}", ev.diagnostics);
        assert_eq!(ev.value, want, "{src}");
    }
}

#[test]
fn unknown_variable_suggests_names() {
    let v = vars(r#"{"req": {}, "each": {}}"#);
    let (ev, sm) = run("rqe.x", &v, None, true);
    assert_eq!(
        errors(&ev, &sm),
        vec![
            "main.hcl:1,1-4: Unknown variable \"rqe\"; There is no variable named \"rqe\". Did you mean \"req\"?"
        ]
    );
}

#[test]
fn for_variables_shadow_and_unknowns_propagate() {
    let v = vars(r#"{"x": 10, "u": {"$unknown": "list(number)"}}"#);
    let (ev, _) = run("[for x in [1, 2] : x + 1]", &v, None, true);
    assert_eq!(ev.value, Value::tuple(vec![Value::int(2), Value::int(3)]));
    let (ev, _) = run("[for x in u : x]", &v, None, true);
    assert_eq!(ev.value, Value::dynamic_unknown());
    let (ev, _) = run("\"a-${u[0]}\"", &v, None, true);
    assert_eq!(ev.value, Value::Unknown(Type::String));
    let (ev, _) = run("length(u) > 0 ? 1 : \"x\"", &v, None, true);
    assert_eq!(ev.value, Value::Unknown(Type::String));
}

#[test]
fn context_is_hcl_expression() {
    // The context range is the expression HCL blames (its diagnostic's
    // Expression), which the DSL prints in discard records.
    let v = vars(r#"{"o": {"a": null}, "l": [1]}"#);
    let cases = [
        ("\"x${o.a}y\"", "o.a"),
        ("[for x in o.a : x]", "o.a"),
        ("{(o.a) = 1}", "(o.a)"),
        ("o.a ? 1 : 2", "o.a"),
        ("\"s\" * 2", "\"s\""),
        ("upper(l)", "l"),
        ("l[5]", "l[5]"),
        ("o.a.b.c", "o.a.b.c"),
    ];
    for (src, want) in cases {
        let (ev, sm) = run(src, &v, None, true);
        let d = ev.diagnostics.iter().find(|d| d.is_error()).expect(src);
        assert_eq!(sm.slice(d.context.expect("context")), want, "{src}");
        assert_eq!(d.expr_text.as_deref(), Some(want), "{src}");
    }
}

/// `&&` and `||` as HCL 2.24 (the Go function-hcl's) evaluates them: a
/// known controlling operand decides, with only its own diagnostics.
#[test]
fn logical_operators_decide_on_a_controlling_operand() {
    let v = vars(r#"{"u": {"$unknown": "bool"}, "o": {"a": true}}"#);
    // (expression, value, error count)
    let cases = [
        ("u && false", Value::FALSE, 0),
        ("false && u", Value::FALSE, 0),
        ("u || true", Value::TRUE, 0),
        ("true || u", Value::TRUE, 0),
        ("u && true", Value::Unknown(Type::Bool), 0),
        ("u || false", Value::Unknown(Type::Bool), 0),
        ("u && u", Value::Unknown(Type::Bool), 0),
        // An error in the operand that does not matter is dropped.
        ("o.missing && false", Value::FALSE, 0),
        ("true || o.missing", Value::TRUE, 0),
        // One that matters stays.
        ("o.missing && true", Value::Unknown(Type::Bool), 1),
        ("o.missing || o.other", Value::Unknown(Type::Bool), 2),
        ("u && o.missing", Value::Unknown(Type::Bool), 0),
        // Conversion errors are never dropped.
        ("\"x\" && false", Value::Unknown(Type::Bool), 1),
        ("o.a && false", Value::FALSE, 0),
    ];
    for (src, want, n_errors) in cases {
        let (ev, sm) = run(src, &v, None, true);
        assert_eq!(ev.value, want, "{src}");
        assert_eq!(
            errors(&ev, &sm).len(),
            n_errors,
            "{src}: {:?}",
            errors(&ev, &sm)
        );
    }
}
