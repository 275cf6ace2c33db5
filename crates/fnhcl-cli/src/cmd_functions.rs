//! `fn-hcl functions`: lists the built-in functions (name, signature,
//! description) by category, or prints the Markdown reference.

use std::fmt::Write as _;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print the Markdown reference (the text of docs/functions.md).
    #[arg(long)]
    markdown: bool,
    /// Show only the functions whose names contain this text.
    filter: Option<String>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.markdown {
        print!("{}", fnhcl_functions::docs::functions_markdown());
        return Ok(ExitCode::SUCCESS);
    }
    let out = listing(args.filter.as_deref());
    if out.is_empty() {
        eprintln!(
            "no built-in function matches {:?}",
            args.filter.unwrap_or_default()
        );
        return Ok(ExitCode::FAILURE);
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// One section per category; each function as its signature, then its
/// description indented below.
fn listing(filter: Option<&str>) -> String {
    let mut out = String::new();
    for (cat, fs) in fnhcl_functions::docs::by_category() {
        let fs: Vec<_> = fs
            .into_iter()
            .filter(|f| filter.is_none_or(|p| f.name.contains(p)))
            .collect();
        if fs.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{cat}:");
        for f in fs {
            let _ = writeln!(out, "  {}", f.signature());
            let _ = writeln!(out, "      {}", f.description);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::listing;

    #[test]
    fn lists_signature_and_description() {
        let all = listing(None);
        assert!(all.contains("Numeric:\n"));
        assert!(all.contains("  max(numbers ...number) number\n"));
        assert!(all.contains("  can(expression any) bool\n"));
        let one = listing(Some("zipmap"));
        assert!(one.starts_with("Collection:\n  zipmap("), "{one}");
        assert_eq!(one.lines().count(), 3);
        assert!(listing(Some("no-such-function")).is_empty());
    }
}
