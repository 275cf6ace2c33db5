//! Splitting the inline `hcl` text into files (upstream §1.3, D2).
//!
//! Kept here until `fnhcl_base::txtar` offers the same; the rules are
//! txtar's: a marker is a line `-- NAME --` with a non-empty trimmed name,
//! text before the first marker is ignored, a last file without a final
//! newline gets one. Extensions (D2): text without any marker is one file
//! `main.hcl`; two files with the same name are an error.

use fnhcl_base::txtar::TxtarFile;

fn marker_name(line: &str) -> Option<&str> {
    if line.len() < 6 || !line.starts_with("-- ") || !line.ends_with(" --") {
        return None;
    }
    let name = line[3..line.len() - 3].trim();
    (!name.is_empty()).then_some(name)
}

/// Splits a bundle into its files.
pub(crate) fn split(text: &str) -> Result<Vec<TxtarFile>, String> {
    let mut files: Vec<TxtarFile> = Vec::new();
    let mut current: Option<TxtarFile> = None;
    let mut saw_marker = false;
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        if let Some(name) = marker_name(bare) {
            saw_marker = true;
            if let Some(f) = current.take() {
                files.push(f);
            }
            if files.iter().any(|f| f.name == name) {
                return Err(format!(
                    "the HCL bundle has two files named {name:?}; file names must be unique"
                ));
            }
            current = Some(TxtarFile {
                name: name.to_owned(),
                data: String::new(),
            });
        } else if let Some(f) = current.as_mut() {
            f.data.push_str(line);
        }
    }
    if let Some(f) = current.take() {
        files.push(f);
    }
    if !saw_marker {
        files.push(TxtarFile {
            name: "main.hcl".to_owned(),
            data: text.to_owned(),
        });
    }
    if let Some(last) = files.last_mut()
        && !last.data.is_empty()
        && !last.data.ends_with('\n')
    {
        last.data.push('\n');
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[TxtarFile]) -> Vec<(&str, &str)> {
        files
            .iter()
            .map(|f| (f.name.as_str(), f.data.as_str()))
            .collect()
    }

    #[test]
    fn splits_files_and_drops_the_comment() {
        let files = split("comment\n-- a.hcl --\nx = 1\n--  b.hcl  --\ny = 2").expect("valid");
        assert_eq!(names(&files), [("a.hcl", "x = 1\n"), ("b.hcl", "y = 2\n")]);
    }

    #[test]
    fn plain_text_is_main_hcl() {
        let files = split("x = 1").expect("valid");
        assert_eq!(names(&files), [("main.hcl", "x = 1\n")]);
    }

    #[test]
    fn crlf_markers_and_empty_names_are_not_markers() {
        let files = split("-- a.hcl --\r\nx\n-- --\ny\n").expect("valid");
        assert_eq!(
            names(&files),
            [("main.hcl", "-- a.hcl --\r\nx\n-- --\ny\n")]
        );
    }

    #[test]
    fn duplicate_names_are_an_error() {
        let err = split("-- a.hcl --\n-- b.hcl --\n-- a.hcl --\n").expect_err("dup");
        assert!(err.contains("\"a.hcl\""), "{err}");
    }
}
