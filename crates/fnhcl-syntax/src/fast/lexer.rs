//! The scanner: blanks and comments, identifiers, numbers and keywords,
//! as hcl-edit reads them. HCL's newline rules depend on the context, so
//! the parser asks for what it expects instead of reading a token stream.

use super::{Bail, Parser, R};

/// First byte of an identifier (ASCII only: a non-ASCII letter makes the
/// fast path give up, since hcl-edit takes Unicode identifiers).
pub(super) fn id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

pub(super) fn id_continue(c: u8) -> bool {
    ID_CONTINUE[usize::from(c)]
}

/// [`id_continue`] as a table (the identifier loop's one load per byte).
static ID_CONTINUE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        c += 1;
    }
    t
};

/// The end of the run of spaces and tabs (and newlines if `newlines`)
/// in `b[from..end]`. Indentation comes eight spaces at a time.
fn blanks(b: &[u8], from: usize, end: usize, newlines: bool) -> usize {
    let b = &b[..end];
    let mut i = from;
    while let Some(&c) = b.get(i) {
        if c == b' ' {
            if let Some(chunk) = b.get(i..i + 8)
                && chunk == b"        "
            {
                i += 8;
            } else {
                i += 1;
            }
        } else if c == b'\t' || (c == b'\n' && newlines) {
            i += 1;
        } else {
            break;
        }
    }
    i
}

impl Parser<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.b[self.pos])
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<u8> {
        let i = self.pos + ahead;
        (i < self.end).then(|| self.b[i])
    }

    /// The next two bytes, as hcl-edit peeks them to decide whether an
    /// operator or a traversal follows (`None` near the end of the text).
    pub(super) fn peek2(&self) -> R<Option<(u8, u8)>> {
        if self.pos + 2 <= self.end {
            Ok(Some((self.b[self.pos], self.b[self.pos + 1])))
        } else if self.in_heredoc {
            // Cut short by a heredoc's end: hcl-edit would see more.
            Err(Bail)
        } else {
            Ok(None)
        }
    }

    pub(super) fn starts_with(&self, s: &[u8]) -> bool {
        self.b[self.pos..self.end].starts_with(s)
    }

    pub(super) fn expect(&mut self, c: u8) -> R<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Blanks, newlines and comments (hcl-edit's `ws`).
    pub(super) fn ws(&mut self) -> R<()> {
        // A newline inside a quoted template is left to the hcl-edit path.
        let newlines = self.quoted == 0;
        loop {
            let i = blanks(self.b, self.pos, self.end, newlines);
            self.pos = i;
            match self.peek() {
                Some(b'\n') => return Err(Bail),
                Some(b'#') => self.line_comment()?,
                Some(b'/') if self.peek_at(1) == Some(b'/') => self.line_comment()?,
                Some(b'/') if self.peek_at(1) == Some(b'*') => self.inline_comment()?,
                _ => return Ok(()),
            }
        }
    }

    /// Blanks and `/* */` comments on one line (hcl-edit's `sp`).
    pub(super) fn sp(&mut self) -> R<()> {
        loop {
            self.pos = blanks(self.b, self.pos, self.end, false);
            if self.peek() == Some(b'/') && self.peek_at(1) == Some(b'*') {
                self.inline_comment()?;
            } else {
                return Ok(());
            }
        }
    }

    pub(super) fn ws_or_sp(&mut self, newlines: bool) -> R<()> {
        if newlines { self.ws() } else { self.sp() }
    }

    /// `# …` or `// …` up to the end of the line (the newline is left).
    pub(super) fn line_comment(&mut self) -> R<()> {
        if self.quoted > 0 {
            return Err(Bail);
        }
        let rest = &self.b[self.pos..self.end];
        self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        Ok(())
    }

    fn inline_comment(&mut self) -> R<()> {
        let rest = &self.text[self.pos + 2..self.end];
        let close = rest.find("*/").ok_or(Bail)?;
        if self.quoted > 0 && rest[..close].contains('\n') {
            return Err(Bail);
        }
        self.pos += 2 + close + 2;
        Ok(())
    }

    /// An identifier at the current position, if one starts here.
    pub(super) fn ident(&mut self) -> R<(usize, usize)> {
        let start = self.pos;
        match self.peek() {
            Some(c) if id_start(c) => {}
            _ => return Err(Bail),
        }
        let b = &self.b[..self.end];
        let mut i = start + 1;
        while let Some(&c) = b.get(i) {
            if !ID_CONTINUE[usize::from(c)] {
                break;
            }
            i += 1;
        }
        self.pos = i;
        if b.get(i).is_some_and(|&c| c >= 0x80) {
            // Possibly a Unicode identifier character.
            return Err(Bail);
        }
        Ok((start, self.pos))
    }

    /// `word` here, followed by a byte that cannot continue an identifier
    /// (hcl-edit would read `iffy` as the keyword `if` and `fy`).
    pub(super) fn keyword(&mut self, word: &[u8]) -> R<bool> {
        if !self.starts_with(word) {
            return Ok(false);
        }
        match self.peek_at(word.len()) {
            Some(c) if id_continue(c) || c >= 0x80 => Err(Bail),
            _ => {
                self.pos += word.len();
                Ok(true)
            }
        }
    }

    /// A number literal (digits, fraction, exponent) as hcl-edit reads it.
    /// Literals it reads another way, or not at all, make the fast path
    /// give up: a `.` after the number, an exponent without digits, a
    /// value out of float range.
    pub(super) fn number(&mut self) -> R<()> {
        let start = self.pos;
        self.digits();
        let mut float = false;
        if self.peek() == Some(b'.') {
            if !self.peek_at(1).is_some_and(|c| c.is_ascii_digit()) {
                return Err(Bail);
            }
            self.pos += 1;
            self.digits();
            float = true;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(Bail);
            }
            self.digits();
            float = true;
        }
        if self.peek() == Some(b'.') {
            return Err(Bail);
        }
        let lit = &self.text[start..self.pos];
        if float {
            match lit.parse::<f64>() {
                Ok(v) if v.is_finite() => {}
                _ => return Err(Bail),
            }
        } else if lit.len() > 300 {
            return Err(Bail);
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
    }
}
