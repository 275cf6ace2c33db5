//! Functions evaluated by the expression evaluator: `try`, `can` (lazy
//! arguments) and `invoke` (user functions). Registered for the listing and
//! for `exists` only.

use fnhcl_value::Type;

use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "can",
            "Evaluates its argument and returns whether it produced a result without errors.",
        )
        .param(Param::new("expression", Type::Dynamic))
        .returns(Type::Bool),
    );
    r.add(
        FuncDef::new(
            "try",
            "Evaluates its arguments in turn and returns the first one that does not produce an error.",
        )
        .variadic(Param::new("expressions", Type::Dynamic)),
    );
    r.add(
        FuncDef::new(
            "invoke",
            "Calls the user-defined function named by its first argument with the remaining arguments.",
        )
        .param(Param::new("name", Type::String))
        .variadic(Param::new("args", Type::Dynamic)),
    );
}
