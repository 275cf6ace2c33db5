//! A lossless HCL native-syntax tokenizer for the formatter.
//!
//! It produces the same kind of token stream HCL's own scanner does (one token
//! per punctuation mark, template literals, heredoc lines, comments that own
//! their trailing newline), which is what the layout rules in [`crate::layout`]
//! work on. Whitespace between tokens is dropped: the layout recomputes it.

use crate::FormatError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Ident,
    Number,
    Newline,
    /// `# ...` / `// ...` (own the trailing newline, if any) or `/* ... */`.
    Comment,
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    Comma,
    Dot,
    Ellipsis,
    Equal,
    EqualOp,
    NotEqual,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    Bang,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Question,
    Colon,
    FatArrow,
    OQuote,
    CQuote,
    /// Literal text inside a quoted template.
    QuotedLit,
    /// `${` or `${~`
    TemplateInterp,
    /// `%{` or `%{~`
    TemplateControl,
    /// `}` or `~}` closing an interpolation or directive.
    TemplateSeqEnd,
    /// `<<EOT` / `<<-EOT` including the newline after the marker.
    OHeredoc,
    /// The heredoc closing marker line (with its indentation, without newline).
    CHeredoc,
    /// Literal text inside a heredoc.
    StringLit,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub(crate) kind: Kind,
    pub(crate) text: String,
    pub(crate) spaces_before: usize,
    /// Whether the source had whitespace right before this token.
    pub(crate) spaced_in_source: bool,
}

impl Token {
    fn new(kind: Kind, text: &str) -> Token {
        Token {
            kind,
            text: text.to_owned(),
            spaces_before: 0,
            spaced_in_source: false,
        }
    }

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

enum Mode {
    /// Top level or inside `( [ {`: `braces` counts `{` opened inside an
    /// interpolation so that the matching `}` is not taken as its end.
    Normal {
        interp: bool,
        braces: usize,
    },
    Quoted,
    Heredoc {
        marker: String,
        line_start: bool,
    },
}

/// Maximum template nesting (`"${"${"..."}"}"`), to bound the mode stack.
const MAX_NESTING: usize = 256;

pub(crate) fn lex(src: &str) -> Result<Vec<Token>, FormatError> {
    let mut lx = Lexer {
        src,
        pos: 0,
        out: Vec::new(),
        modes: vec![Mode::Normal {
            interp: false,
            braces: 0,
        }],
    };
    lx.run()?;
    Ok(lx.out)
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    out: Vec<Token>,
    modes: Vec<Mode>,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c == '-' || c.is_alphanumeric()
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn error(&self, message: &str) -> FormatError {
        let before = &self.src[..self.pos];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        FormatError::Syntax {
            line,
            column: col,
            message: message.to_owned(),
        }
    }

    fn push(&mut self, kind: Kind, len: usize) {
        let text = &self.src[self.pos..self.pos + len];
        let mut token = Token::new(kind, text);
        token.spaced_in_source = self.src[..self.pos].ends_with([' ', '\t']);
        self.out.push(token);
        self.pos += len;
    }

    fn push_mode(&mut self, m: Mode) -> Result<(), FormatError> {
        if self.modes.len() >= MAX_NESTING {
            return Err(self.error("templates nested too deeply"));
        }
        self.modes.push(m);
        Ok(())
    }

    fn run(&mut self) -> Result<(), FormatError> {
        while self.pos < self.src.len() {
            match self.modes.last() {
                Some(Mode::Normal { .. }) | None => self.normal()?,
                Some(Mode::Quoted) => self.quoted()?,
                Some(Mode::Heredoc { .. }) => self.heredoc()?,
            }
        }
        match self.modes.last() {
            Some(Mode::Normal { interp: false, .. }) => Ok(()),
            Some(Mode::Heredoc { .. }) => Err(self.error("unterminated heredoc")),
            _ => Err(self.error("unterminated template")),
        }
    }

    fn normal(&mut self) -> Result<(), FormatError> {
        let rest = self.rest();
        let Some(c) = rest.chars().next() else {
            return Ok(());
        };
        match c {
            ' ' | '\t' => {
                self.pos += 1;
            }
            '\n' => self.push(Kind::Newline, 1),
            '\r' if rest.starts_with("\r\n") => self.push(Kind::Newline, 2),
            '#' => self.line_comment(),
            '/' if rest.starts_with("//") => self.line_comment(),
            '/' if rest.starts_with("/*") => match rest[2..].find("*/") {
                Some(i) => self.push(Kind::Comment, i + 4),
                None => return Err(self.error("unterminated comment")),
            },
            '"' => {
                self.push(Kind::OQuote, 1);
                self.push_mode(Mode::Quoted)?;
            }
            '<' if rest.starts_with("<<") => return self.heredoc_open(),
            '{' => {
                if let Some(Mode::Normal { braces, .. }) = self.modes.last_mut() {
                    *braces += 1;
                }
                self.push(Kind::OBrace, 1);
            }
            '}' => {
                if let Some(Mode::Normal {
                    interp: true,
                    braces: 0,
                }) = self.modes.last()
                {
                    self.push(Kind::TemplateSeqEnd, 1);
                    self.modes.pop();
                } else {
                    if let Some(Mode::Normal { braces, .. }) = self.modes.last_mut() {
                        *braces = braces.saturating_sub(1);
                    }
                    self.push(Kind::CBrace, 1);
                }
            }
            '~' if rest.starts_with("~}") => {
                if let Some(Mode::Normal {
                    interp: true,
                    braces: 0,
                }) = self.modes.last()
                {
                    self.push(Kind::TemplateSeqEnd, 2);
                    self.modes.pop();
                } else {
                    return Err(self.error("unexpected `~`"));
                }
            }
            '0'..='9' => {
                let len = number_len(rest);
                self.push(Kind::Number, len);
            }
            c if is_ident_start(c) => {
                let len = rest
                    .char_indices()
                    .find(|&(_, ch)| !is_ident_continue(ch))
                    .map(|(i, _)| i)
                    .unwrap_or(rest.len());
                self.push(Kind::Ident, len);
            }
            _ => {
                const OPS: &[(&str, Kind)] = &[
                    ("...", Kind::Ellipsis),
                    ("==", Kind::EqualOp),
                    ("!=", Kind::NotEqual),
                    ("<=", Kind::LtEq),
                    (">=", Kind::GtEq),
                    ("&&", Kind::And),
                    ("||", Kind::Or),
                    ("=>", Kind::FatArrow),
                    ("=", Kind::Equal),
                    ("<", Kind::Lt),
                    (">", Kind::Gt),
                    ("!", Kind::Bang),
                    ("+", Kind::Plus),
                    ("-", Kind::Minus),
                    ("*", Kind::Star),
                    ("/", Kind::Slash),
                    ("%", Kind::Percent),
                    ("?", Kind::Question),
                    (":", Kind::Colon),
                    (".", Kind::Dot),
                    (",", Kind::Comma),
                    ("(", Kind::OParen),
                    (")", Kind::CParen),
                    ("[", Kind::OBrack),
                    ("]", Kind::CBrack),
                ];
                match OPS.iter().find(|(op, _)| rest.starts_with(op)) {
                    Some(&(op, kind)) => self.push(kind, op.len()),
                    None => return Err(self.error(&format!("unexpected character {c:?}"))),
                }
            }
        }
        Ok(())
    }

    fn line_comment(&mut self) {
        let rest = self.rest();
        let len = rest.find('\n').map(|i| i + 1).unwrap_or(rest.len());
        self.push(Kind::Comment, len);
    }

    fn heredoc_open(&mut self) -> Result<(), FormatError> {
        let rest = self.rest();
        let mut i = 2;
        if rest[i..].starts_with('-') {
            i += 1;
        }
        let name_start = i;
        let mut chars = rest[i..].char_indices();
        match chars.next() {
            Some((_, c)) if is_ident_start(c) => {}
            _ => return Err(self.error("invalid heredoc marker")),
        }
        let name_len = rest[name_start..]
            .char_indices()
            .find(|&(_, ch)| !is_ident_continue(ch))
            .map(|(j, _)| j)
            .unwrap_or(rest.len() - name_start);
        let marker = rest[name_start..name_start + name_len].to_owned();
        i = name_start + name_len;
        let nl = if rest[i..].starts_with("\r\n") {
            2
        } else if rest[i..].starts_with('\n') {
            1
        } else {
            return Err(self.error("heredoc marker must be followed by a newline"));
        };
        self.push(Kind::OHeredoc, i + nl);
        self.push_mode(Mode::Heredoc {
            marker,
            line_start: true,
        })
    }

    /// Finds the end of template literal text starting at the current
    /// position: stops before `${`/`%{` (but not `$${`/`%%{`), and for quoted
    /// templates before `"` (honouring backslash escapes) or a newline; for
    /// heredocs after a newline.
    fn literal_len(&self, quoted: bool) -> usize {
        let rest = self.rest().as_bytes();
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                b'\\' if quoted => {
                    i += 2;
                    continue;
                }
                b'"' if quoted => return i,
                b'\n' if quoted => return i,
                b'\r' if quoted && rest.get(i + 1) == Some(&b'\n') => return i,
                b'\n' => return i + 1,
                b'$' | b'%' => {
                    let c = rest[i];
                    if rest.get(i + 1) == Some(&c) && rest.get(i + 2) == Some(&b'{') {
                        i += 3;
                        continue;
                    }
                    if rest.get(i + 1) == Some(&b'{') {
                        return i;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        // Never split a UTF-8 sequence (a trailing backslash may overshoot).
        rest.len().min(i)
    }

    fn template_open(&mut self) -> Result<bool, FormatError> {
        let rest = self.rest();
        let kind = if rest.starts_with("${") {
            Kind::TemplateInterp
        } else if rest.starts_with("%{") {
            Kind::TemplateControl
        } else {
            return Ok(false);
        };
        let len = if rest[2..].starts_with('~') { 3 } else { 2 };
        self.push(kind, len);
        self.push_mode(Mode::Normal {
            interp: true,
            braces: 0,
        })?;
        Ok(true)
    }

    fn quoted(&mut self) -> Result<(), FormatError> {
        if self.template_open()? {
            return Ok(());
        }
        let rest = self.rest();
        if rest.starts_with('"') {
            self.push(Kind::CQuote, 1);
            self.modes.pop();
            return Ok(());
        }
        if rest.starts_with('\n') || rest.starts_with("\r\n") {
            return Err(self.error("unterminated string"));
        }
        let len = self.literal_len(true);
        let len = clamp_boundary(rest, len);
        if len == 0 {
            return Err(self.error("unterminated string"));
        }
        self.push(Kind::QuotedLit, len);
        Ok(())
    }

    fn heredoc(&mut self) -> Result<(), FormatError> {
        let Some(Mode::Heredoc { marker, line_start }) = self.modes.last() else {
            return Ok(());
        };
        let (marker, line_start) = (marker.clone(), *line_start);
        let rest = self.rest();
        if line_start {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let line = rest[..line_end].trim_end_matches('\r');
            if line.trim() == marker.as_str() {
                let len = line.len();
                self.push(Kind::CHeredoc, len);
                self.modes.pop();
                return Ok(());
            }
        }
        if self.template_open()? {
            if let Some(Mode::Heredoc { line_start, .. }) = self.modes.iter_mut().rev().nth(1) {
                *line_start = false;
            }
            return Ok(());
        }
        let rest = self.rest();
        let len = clamp_boundary(rest, self.literal_len(false));
        if len == 0 {
            return Err(self.error("invalid heredoc content"));
        }
        let ends_line = rest[..len].ends_with('\n');
        self.push(Kind::StringLit, len);
        if let Some(Mode::Heredoc { line_start, .. }) = self.modes.last_mut() {
            *line_start = ends_line;
        }
        Ok(())
    }
}

fn clamp_boundary(s: &str, mut len: usize) -> usize {
    len = len.min(s.len());
    while !s.is_char_boundary(len) {
        len += 1;
    }
    len
}

/// `digits ('.' digits)? ([eE] [+-]? digits)?`
fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = digits(0);
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1 + digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            i = j + digits(j);
        }
    }
    i
}
