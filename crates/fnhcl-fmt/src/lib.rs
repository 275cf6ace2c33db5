//! Canonical HCL formatter.
//!
//! [`format`] gives an HCL native-syntax file its canonical layout, the one
//! `terraform fmt` (hclwrite) produces: two-space indentation from bracket
//! nesting, normalised spacing inside expressions, `=` signs and trailing
//! comments aligned across consecutive single-line attributes, comments and
//! heredoc contents kept as written. On top of that, as upstream
//! `fn-hcl-tools fmt` does by default, `:` between an object key and its
//! value becomes `=`. Every line is kept, blank ones included (as hclwrite
//! does), so formatting never moves a line; going past hclwrite, the file
//! ends with a newline.
//!
//! Guarantees, checked on every call: formatting is idempotent, and the
//! result parses to the same syntax tree as the input (ignoring layout and
//! the `:`/`=` choice). A file with a syntax error is reported, never
//! changed. No IO.

mod canon;
mod layout;
mod lexer;
mod normalize;

use std::fmt;

/// Formatting options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rewrite `:` to `=` between object keys and values (default true).
    pub normalize_literals: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            normalize_literals: true,
        }
    }
}

/// Why a file could not be formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// The input is not valid HCL (1-based line and column).
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The formatter would have changed the meaning of the file or produced
    /// invalid output. This is a bug; the input is left untouched.
    Internal(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Syntax {
                line,
                column,
                message,
            } => write!(f, "{line},{column}: {message}"),
            FormatError::Internal(m) => write!(
                f,
                "internal formatter error ({m}); the file was left unchanged, please report this"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// Formats with the default options.
pub fn format(src: &str) -> Result<String, FormatError> {
    format_with(src, &Options::default())
}

/// Formats `src` (the text of one `.hcl` file).
pub fn format_with(src: &str, options: &Options) -> Result<String, FormatError> {
    let before = meaning(src)?;
    let mut tokens = lexer::lex(src)?;
    if options.normalize_literals {
        normalize::colons_to_equals(&mut tokens);
    }
    let out = layout::render(tokens);
    let after = meaning(&out)
        .map_err(|e| FormatError::Internal(format!("the formatted text does not parse: {e}")))?;
    if before != after {
        return Err(FormatError::Internal(
            "the formatted text would mean something else".to_owned(),
        ));
    }
    Ok(out)
}

/// The meaning of a file: a canonical text of its syntax tree, without
/// layout, comments, trailing commas or the `:`/`=` choice in objects. Two
/// sources with equal meanings are equivalent programs.
pub fn meaning(src: &str) -> Result<String, FormatError> {
    // Same pre-scan as the evaluator's parser: some unbalanced inputs make
    // hcl-edit backtrack exponentially (found by fuzzing).
    if let Some((at, message)) = fnhcl_syntax::precheck(src) {
        let before = &src[..at.min(src.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        return Err(FormatError::Syntax {
            line,
            column,
            message,
        });
    }
    let body = hcl_edit::parser::parse_body(src).map_err(|e| FormatError::Syntax {
        line: e.location().line(),
        column: e.location().column(),
        message: e.message().to_owned(),
    })?;
    canon::body(&body).ok_or_else(|| FormatError::Syntax {
        line: 1,
        column: 1,
        message: "nesting too deep".to_owned(),
    })
}
