//! The function reference (`docs/functions.md`), generated from the
//! registry. A test keeps the committed file in sync.

use std::fmt::Write as _;

use crate::catalog::registry;
use crate::registry::FuncDef;

/// Categories in listing order; functions of any other category follow.
const ORDER: &[&str] = &[
    "Numeric",
    "String",
    "Collection",
    "Encoding",
    "Hash and crypto",
    "IP network",
    "Date and time",
    "Type conversion",
    "Evaluation",
];

/// Functions grouped by category, categories in listing order, functions
/// by name.
pub fn by_category() -> Vec<(&'static str, Vec<&'static FuncDef>)> {
    let mut cats: Vec<&'static str> = ORDER.to_vec();
    for f in registry().iter() {
        if !cats.contains(&f.category) {
            cats.push(f.category);
        }
    }
    cats.into_iter()
        .map(|c| {
            (
                c,
                registry()
                    .iter()
                    .filter(|f| f.category == c)
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, fs)| !fs.is_empty())
        .collect()
}

/// The Markdown reference of all built-ins.
pub fn functions_markdown() -> String {
    let mut s = String::new();
    s.push_str("# Built-in functions\n\n");
    s.push_str(
        "<!-- Generated from the function registry in crates/fnhcl-functions; do not edit.\n     \
         Regenerate with: FNHCL_BLESS=1 cargo test -p fnhcl-functions --test docs -->\n\n",
    );
    let _ = writeln!(
        s,
        "{} functions: Terraform 1.5.7's built-ins, without those that read the clock or \
         randomness (`timestamp`, `plantimestamp`, `uuid`, `bcrypt`) or files (`file`, \
         `fileexists`, `fileset`, `filebase64`, the `file*` hashes, `templatefile`, `abspath`, \
         `dirname`, `basename`, `pathexpand`), see decision D8; with `type`, `sensitive`, \
         `nonsensitive` and `uuidv5`, which the Go function-hcl lacks; plus `invoke`. Signatures \
         use `...` for a variadic parameter and `any` for a parameter of any type. \
         `fn-hcl functions` prints the same list.\n",
        registry().len()
    );
    for (cat, fs) in by_category() {
        let title = if cat.is_empty() { "Other" } else { cat };
        let _ = writeln!(s, "## {title}\n");
        s.push_str("| Function | Signature | Description |\n");
        s.push_str("| --- | --- | --- |\n");
        for f in fs {
            let _ = writeln!(
                s,
                "| `{}` | `{}` | {} |",
                f.name,
                cell(&f.signature()),
                cell(f.description)
            );
        }
        s.push('\n');
    }
    s
}

/// Escapes a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}
