//! The `FileSystem` source (D3): every `*.hcl` file of a directory mounted
//! into the function, sorted by name, cached until a file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use fnhcl_base::txtar::TxtarFile;
use fnhcl_crossplane::DirectoryReader;

/// Largest single file read (a program is text; this guards mistakes).
const MAX_FILE_BYTES: u64 = 16 << 20;

/// What identifies the directory's state: each file's name, size and
/// modification time (following symlinks, as ConfigMap volumes use them).
type Signature = Vec<(String, u64, Option<SystemTime>)>;

/// Reads `*.hcl` files from the local file system, re-reading only when the
/// directory's file list, sizes or modification times changed.
#[derive(Default)]
pub struct FsDirectoryReader {
    cache: Mutex<HashMap<PathBuf, (Signature, Arc<Vec<TxtarFile>>)>>,
}

impl FsDirectoryReader {
    pub fn new() -> FsDirectoryReader {
        FsDirectoryReader::default()
    }
}

fn signature(dir: &Path) -> Result<Signature, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| e.to_string())?;
    let mut sig = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        // Hidden entries include ConfigMap volumes' `..data` machinery.
        if name.starts_with('.') || !name.ends_with(".hcl") {
            continue;
        }
        // `metadata` follows symlinks.
        let meta = std::fs::metadata(entry.path()).map_err(|e| format!("{name}: {e}"))?;
        if !meta.is_file() {
            continue;
        }
        sig.push((name, meta.len(), meta.modified().ok()));
    }
    sig.sort();
    Ok(sig)
}

impl DirectoryReader for FsDirectoryReader {
    fn read_hcl_files(&self, path: &str) -> Result<Arc<Vec<TxtarFile>>, String> {
        let dir = PathBuf::from(path);
        let sig = signature(&dir)?;
        {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((cached_sig, files)) = cache.get(&dir)
                && *cached_sig == sig
            {
                return Ok(files.clone());
            }
        }
        let mut files = Vec::with_capacity(sig.len());
        for (name, len, _) in &sig {
            if *len > MAX_FILE_BYTES {
                return Err(format!(
                    "{name}: file is larger than {MAX_FILE_BYTES} bytes"
                ));
            }
            let data =
                std::fs::read_to_string(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
            files.push(TxtarFile {
                name: name.clone(),
                data,
            });
        }
        let files = Arc::new(files);
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        cache.insert(dir, (sig, files.clone()));
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sorted_hcl_files_and_reloads_on_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("b.hcl"), "b").expect("write");
        std::fs::write(dir.path().join("a.hcl"), "a").expect("write");
        std::fs::write(dir.path().join("notes.txt"), "x").expect("write");
        std::fs::write(dir.path().join(".hidden.hcl"), "x").expect("write");
        std::fs::create_dir(dir.path().join("sub.hcl")).expect("mkdir");
        let reader = FsDirectoryReader::new();
        let path = dir.path().to_str().expect("utf-8 path");
        let files = reader.read_hcl_files(path).expect("readable");
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a.hcl", "b.hcl"]);
        let again = reader.read_hcl_files(path).expect("readable");
        assert!(Arc::ptr_eq(&files, &again), "unchanged directory is cached");
        std::fs::write(dir.path().join("a.hcl"), "changed").expect("write");
        let changed = reader.read_hcl_files(path).expect("readable");
        assert_eq!(changed[0].data, "changed");
    }

    #[test]
    fn missing_directory_is_an_error() {
        let reader = FsDirectoryReader::new();
        assert!(reader.read_hcl_files("/nonexistent/dir/for/test").is_err());
    }
}
