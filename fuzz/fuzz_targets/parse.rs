//! Lexing and parsing never panic and stay within the text: the tokens
//! cover it in order, with only blanks between them (the formatter and the
//! editor features rely on that); every diagnostic's range lies on
//! character boundaries of the text; and as a file and as one expression.
#![no_main]

use fnhcl_base::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let tokens = fnhcl_syntax::lexer::lex(text);
    let mut at = if text.starts_with('\u{feff}') { 3 } else { 0 };
    for t in &tokens {
        let (s, e) = (t.start as usize, t.end as usize);
        assert!(at <= s && s <= e && e <= text.len(), "{t:?} after {at}");
        assert!(text.is_char_boundary(s) && text.is_char_boundary(e), "{t:?}");
        assert!(
            text[at..s].bytes().all(|b| b == b' ' || b == b'\t'),
            "{:?} between tokens",
            &text[at..s]
        );
        at = e;
    }
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let (_, file_diags) = fnhcl_syntax::parse_file(&sources, file);
    let (_, expr_diags) = fnhcl_syntax::parse_expr(&sources, file);
    for d in file_diags.iter().chain(&expr_diags) {
        let span = d.primary.expect("a parse error has a range");
        let (s, e) = (span.start as usize, span.end as usize);
        assert!(s <= e && e <= text.len(), "{d:?}");
        assert!(text.is_char_boundary(s) && text.is_char_boundary(e), "{d:?}");
    }
});
