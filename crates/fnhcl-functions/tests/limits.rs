//! The collection-size limit is configurable (process-wide, so this test
//! has a binary of its own).

use fnhcl_functions::{DEFAULT_MAX_ELEMENTS, Limits, call, limits, set_limits};
use fnhcl_value::{Type, Value};

#[test]
fn max_elements_is_configurable() {
    assert_eq!(limits(), Limits::default());
    assert_eq!(limits().max_elements, DEFAULT_MAX_ELEMENTS);
    let five = Value::list(Type::Number, (0..5).map(Value::int).collect());
    set_limits(Limits { max_elements: 8 });
    let err = call("concat", &[five.clone(), five.clone()]).and_then(Result::err);
    assert_eq!(
        err.map(|e| e.message),
        Some("the result would have more than 8 elements".to_owned())
    );
    let err = call("setproduct", &[five.clone(), five.clone()]).and_then(Result::err);
    assert!(err.is_some());
    set_limits(Limits::default());
    let ok = call("concat", &[five.clone(), five]).and_then(Result::ok);
    assert_eq!(
        ok.as_ref().and_then(Value::as_seq).map(<[Value]>::len),
        Some(10)
    );
}
