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

mod layout;
mod normalize;
mod tokens;

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
    let mut tokens = tokens::lex(src);
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

/// The meaning of a file: its syntax tree without spans, which leaves out
/// layout, comments, trailing commas and the `:`/`=` choice in objects. Two
/// sources with equal meanings are equivalent programs.
pub fn meaning(src: &str) -> Result<String, FormatError> {
    let mut sources = fnhcl_base::SourceMap::new();
    let file = sources.add("main.hcl", src);
    let (body, diags) = fnhcl_syntax::parse_file(&sources, file);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        let at = d.primary.map_or(0, |s| s.start);
        let pos = sources.get(file).line_col(at);
        return Err(FormatError::Syntax {
            line: pos.line as usize,
            column: pos.col as usize,
            message: format!("{}; {}", d.summary, d.detail),
        });
    }
    Ok(without_spans(&format!("{body:?}")))
}

/// The debug text of a tree with every `Span { … }` left out (a span's
/// debug text has no braces inside, so it ends at the first `}`).
fn without_spans(debug: &str) -> String {
    const SPAN: &str = "Span { file: ";
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(i) = rest.find(SPAN) {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        rest = rest.find('}').map_or("", |j| &rest[j + 1..]);
    }
    out.push_str(rest);
    out
}
