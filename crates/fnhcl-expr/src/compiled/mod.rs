//! Compiled expressions: an expression compiled once (per program) into
//! a form whose evaluation does less per request than the tree walk of
//! its AST, with the same values, diagnostics and steps. See
//! `docs/notes/compiled-evaluator.md`.

mod build;
pub(crate) mod node;

use std::fmt;
use std::ops::Deref;

use fnhcl_syntax::ast::{Expr, ExprKind};

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
    /// variable that is not a `for` variable where it stands; a read
    /// passes the slot to [`crate::Variables::get_slot`]. (A `for`
    /// variable gets its own slot: its place among the `for` bindings.)
    pub fn with_slots(ast: Expr, resolve: &dyn Fn(&str) -> Option<u32>) -> Compiled {
        let node = build::build(&ast, &build::Scope::top(resolve));
        Compiled { ast, node }
    }

    /// Compiles `ast` without taking it: the result holds a stand-in
    /// for the expression (its span only) until [`Compiled::fill`] moves
    /// the same expression in. For a caller that owns the syntax tree
    /// but only borrows it while compiling (a program's compiler), so
    /// that every expression is moved instead of copied. Until filled it
    /// must not be evaluated.
    pub fn with_slots_pending(ast: &Expr, resolve: &dyn Fn(&str) -> Option<u32>) -> Compiled {
        Compiled {
            // A splat's element placeholder never stands at the root of
            // a parsed expression: it marks the stand-in.
            ast: Expr {
                kind: ExprKind::SplatItem,
                span: ast.span,
            },
            node: build::build(ast, &build::Scope::top(resolve)),
        }
    }

    /// Whether this was compiled by [`Compiled::with_slots_pending`] and
    /// not filled yet.
    pub fn is_pending(&self) -> bool {
        matches!(self.ast.kind, ExprKind::SplatItem)
    }

    /// Gives a pending compiled expression the expression it was compiled
    /// from (the caller's, moved).
    pub fn fill(&mut self, ast: Expr) {
        debug_assert!(self.is_pending() && self.ast.span == ast.span);
        self.ast = ast;
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
