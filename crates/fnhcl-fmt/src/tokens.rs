//! The formatter's tokens: those of fnhcl-syntax's lexer (the parser's),
//! each with its text and the spacing the layout gives it. Whitespace
//! between tokens is dropped: the layout recomputes it.

pub(crate) use fnhcl_syntax::lexer::T as Kind;

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) text: String,
    pub(crate) spaces_before: usize,
    /// Whether the source had whitespace right before this token.
    pub(crate) spaced_in_source: bool,
}

/// The tokens of `src`, a text that parses without errors.
pub(crate) fn lex(src: &str) -> Vec<Token> {
    fnhcl_syntax::lexer::lex(src)
        .into_iter()
        .filter(|t| t.kind != Kind::Eof)
        .map(|t| Token {
            kind: t.kind,
            text: t.text(src).to_owned(),
            spaces_before: 0,
            spaced_in_source: src[..t.start as usize].ends_with([' ', '\t']),
        })
        .collect()
}

impl Token {
    /// Single-line comments end with (and own) a newline.
    pub(crate) fn is_newline(&self) -> bool {
        match self.kind {
            Kind::Newline => true,
            Kind::Comment => self.text.ends_with('\n'),
            _ => false,
        }
    }

    /// +1 for openers, -1 for closers (HCL's bracket accounting).
    pub(crate) fn bracket_change(&self) -> i64 {
        match self.kind {
            Kind::OBrace
            | Kind::OBrack
            | Kind::OParen
            | Kind::TemplateControl
            | Kind::TemplateInterp => 1,
            Kind::CBrace | Kind::CBrack | Kind::CParen | Kind::TemplateSeqEnd => -1,
            _ => 0,
        }
    }
}
