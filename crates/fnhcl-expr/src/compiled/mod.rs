//! Compiled expressions: an expression compiled once (per program) into
//! a form whose evaluation does less per request than the tree walk of
//! its AST, with the same values, diagnostics and steps. See
//! `docs/notes/compiled-evaluator.md`.

mod build;
pub(crate) mod node;

use std::fmt;
use std::ops::Deref;

use fnhcl_syntax::ast::Expr;

pub use node::Root;

/// An expression and its compiled form. `Send + Sync`: a program holds
/// it and every request evaluates it ([`crate::evaluate_compiled`]).
/// It dereferences to the expression (spans, analyses).
#[derive(Clone)]
pub struct Compiled {
    ast: Expr,
    node: node::Node,
}

impl Compiled {
    /// Compiles `ast`; root variables are looked up by name
    /// ([`crate::Variables::get`]).
    pub fn new(ast: Expr) -> Compiled {
        Compiled::with_slots(ast, &|_| None)
    }

    /// Compiles `ast`, asking `resolve` for the slot of each root
    /// variable outside `for` expressions and splats; a read passes the
    /// slot to [`crate::Variables::get_slot`].
    pub fn with_slots(ast: Expr, resolve: &dyn Fn(&str) -> Option<u32>) -> Compiled {
        let node = build::build(&ast, resolve);
        Compiled { ast, node }
    }

    /// The expression compiled.
    pub fn ast(&self) -> &Expr {
        &self.ast
    }

    pub(crate) fn node(&self) -> &node::Node {
        &self.node
    }
}

impl Deref for Compiled {
    type Target = Expr;

    fn deref(&self) -> &Expr {
        &self.ast
    }
}

impl fmt::Debug for Compiled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.ast, f)
    }
}

impl From<Expr> for Compiled {
    fn from(ast: Expr) -> Compiled {
        Compiled::new(ast)
    }
}
