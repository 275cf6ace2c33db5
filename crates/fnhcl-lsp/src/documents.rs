//! Open buffers: the editor's text of each open file, kept in step with
//! full and incremental `didChange` notifications.

use lsp_types::TextDocumentContentChangeEvent;

#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub(crate) version: i32,
    pub(crate) text: String,
}

impl Document {
    /// Applies the changes of one `didChange`, in order.
    pub(crate) fn apply(&mut self, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        for change in changes {
            match change.range {
                None => self.text = change.text,
                Some(r) => {
                    let start = crate::convert::offset(&self.text, r.start);
                    let end = crate::convert::offset(&self.text, r.end).max(start);
                    self.text.replace_range(start..end, &change.text);
                }
            }
        }
        self.version = version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn change(r: Option<((u32, u32), (u32, u32))>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: r.map(|(a, b)| Range::new(Position::new(a.0, a.1), Position::new(b.0, b.1))),
            range_length: None,
            text: text.to_owned(),
        }
    }

    #[test]
    fn incremental_edits_apply_in_order() {
        let mut d = Document {
            version: 1,
            text: "locals {\n  a = 1\n}\n".to_owned(),
        };
        d.apply(
            2,
            vec![
                change(Some(((1, 6), (1, 7))), "\"é\""),
                change(Some(((1, 9), (1, 9))), " # 😀"),
                change(Some(((2, 0), (2, 1))), "}"),
            ],
        );
        assert_eq!(d.text, "locals {\n  a = \"é\" # 😀\n}\n");
        assert_eq!(d.version, 2);
        d.apply(3, vec![change(None, "x = 1\n")]);
        assert_eq!(d.text, "x = 1\n");
        // A range past the end is clamped, not a panic.
        d.apply(4, vec![change(Some(((7, 3), (9, 0))), "y = 2\n")]);
        assert_eq!(d.text, "x = 1\ny = 2\n");
    }
}
