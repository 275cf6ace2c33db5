//! `fn-hcl fmt [--check] [PATH...|-]`: canonical formatting of HCL files.
//!
//! A directory is walked for `*.hcl` files (recursively unless
//! `--recursive=false`; hidden directories are skipped); a file argument is
//! formatted whatever its extension; `-` formats stdin to stdout. Files with
//! syntax errors are reported and left untouched. Rewritten (or, with
//! `--check`, unformatted) files are listed on stdout.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, bail};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Only check: list the files that are not formatted and exit 1 if any.
    #[arg(short, long)]
    check: bool,
    /// Show what would change as a unified diff instead of rewriting
    /// (exit status as with --check).
    #[arg(short, long)]
    diff: bool,
    /// Walk directories recursively.
    #[arg(short, long, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    recursive: bool,
    /// Rewrite `:` to `=` between object keys and values.
    #[arg(long, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    normalize_literals: bool,
    /// Files or directories (default `.`); `-` reads stdin and writes stdout.
    paths: Vec<PathBuf>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let options = fnhcl_fmt::Options {
        normalize_literals: args.normalize_literals,
    };
    let stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if stdin {
        if args.paths.len() > 1 {
            bail!("cannot mix stdin with other files");
        }
        return format_stdin(&options, args.check || args.diff);
    }
    let roots = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut files = Vec::new();
    for root in &roots {
        let meta = std::fs::metadata(root).with_context(|| format!("stat {}", root.display()))?;
        if meta.is_dir() {
            collect_hcl_files(root, args.recursive, &mut files)?;
        } else {
            files.push(root.clone());
        }
    }

    let mut stdout = std::io::stdout().lock();
    let mut changed = 0usize;
    let mut broken = 0usize;
    for file in &files {
        let src =
            std::fs::read_to_string(file).with_context(|| format!("read {}", file.display()))?;
        let out = match fnhcl_fmt::format_with(&src, &options) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("{}:{e}", file.display());
                broken += 1;
                continue;
            }
        };
        if out == src {
            continue;
        }
        changed += 1;
        if args.diff {
            let name = file.display().to_string();
            write!(
                stdout,
                "{}",
                similar::TextDiff::from_lines(&src, &out)
                    .unified_diff()
                    .header(&name, &name)
            )?;
            continue;
        }
        writeln!(stdout, "{}", file.display())?;
        if !args.check {
            std::fs::write(file, out).with_context(|| format!("write {}", file.display()))?;
        }
    }
    if broken > 0 {
        eprintln!(
            "{broken} file{} could not be formatted",
            if broken == 1 { "" } else { "s" }
        );
    }
    if (args.check || args.diff) && changed > 0 {
        eprintln!(
            "{changed} unformatted file{} found",
            if changed == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(if broken > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn format_stdin(options: &fnhcl_fmt::Options, check: bool) -> anyhow::Result<ExitCode> {
    let mut src = String::new();
    std::io::stdin()
        .read_to_string(&mut src)
        .context("read stdin")?;
    match fnhcl_fmt::format_with(&src, options) {
        Ok(out) => {
            if check {
                if out != src {
                    println!("-");
                    return Ok(ExitCode::FAILURE);
                }
                return Ok(ExitCode::SUCCESS);
            }
            std::io::stdout().write_all(out.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("<stdin>:{e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `*.hcl` regular files under `dir`, sorted by path, skipping hidden
/// directories (`.git`, ...).
fn collect_hcl_files(dir: &Path, recursive: bool, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("read {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("read {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let ty = entry.file_type()?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if ty.is_dir() {
            if recursive && !hidden {
                collect_hcl_files(&path, recursive, out)?;
            }
        } else if path.extension().is_some_and(|x| x == "hcl")
            && std::fs::metadata(&path)?.is_file()
        {
            out.push(path);
        }
    }
    Ok(())
}
