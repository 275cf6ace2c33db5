//! Editor features over one program: what the language server answers,
//! computed from a [`Snapshot`] (the files of one composition directory
//! with open buffers in place of the disk, and what is known of its
//! schemas). Positions are byte offsets into a file of the snapshot's
//! [`SourceMap`]; the LSP crate converts them to and from the editor's
//! line/UTF-16 positions.
//!
//! Pure: no IO, no LSP types. Each feature has a module of its own.

mod completion;
mod cursor;
mod docs;
mod fixes;
mod hover;
mod lex;
mod members;
mod navigate;
mod outline;
mod preview;
mod program;
pub mod resolve;
mod signature;
mod snapshot;
mod tokens;
mod walk;

#[cfg(test)]
mod nav_robust_tests;
#[cfg(test)]
mod perf_tests;
#[cfg(test)]
mod tests;

pub use completion::{CompletionItem, CompletionKind, complete};
pub use fixes::{QuickFix, quick_fix};
pub use fnhcl_render::Source as PreviewSource;
pub use hover::{Hover, hover};
pub use navigate::{definition, prepare_rename, references, rename};
pub use outline::{
    Fold, FoldKind, Symbol, SymbolKind, WorkspaceSymbol, document_symbols, folding_ranges,
    workspace_symbols,
};
pub use preview::{HintKind, InlayHint, Preview, PreviewInputs, preview};
pub use signature::{SignatureHelp, SignatureInfo, signature_help};
pub use snapshot::Snapshot;
pub use tokens::{Token, TokenKind, semantic_tokens};

pub use fnhcl_base::{Diagnostic, FileId, Severity, SourceMap, Span};

/// A position in a file of a snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilePosition {
    pub file: FileId,
    /// Byte offset into the file's text (on a char boundary).
    pub offset: u32,
}

/// A whole-document text replacement (formatting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub span: Span,
    pub new_text: String,
}

/// `fn-hcl fmt` of one file: `None` when it is already formatted, an
/// error (the formatter's message) when it cannot be formatted (it does
/// not parse).
pub fn format(snapshot: &Snapshot, file: FileId) -> Result<Option<TextEdit>, String> {
    let f = snapshot.sources().get(file);
    let formatted = fnhcl_fmt::format(&f.text).map_err(|e| e.to_string())?;
    if *formatted == *f.text {
        return Ok(None);
    }
    Ok(Some(TextEdit {
        span: Span::new(file, 0, f.text.len()),
        new_text: formatted,
    }))
}
