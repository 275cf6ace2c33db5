//! The `FileSystem` source (D3): every `*.hcl` file under a directory
//! mounted into the function, subdirectories included (they hold modules,
//! D24), sorted by relative name.
//!
//! Every call reads the tree as one consistent snapshot (walked, read, and
//! walked again until both walks agree; files modified in the last moments
//! are waited for), so a file rewritten in place is never read torn or
//! empty: an empty file is an error. The cache holds the files of the
//! directories read last, bounded by a number of directories and by bytes
//! (least recently used go first), and is compared by content: it keeps the
//! same files as the same `Arc` call after call, for the program cache.
//!
//! Size: about 470 lines of code; the rest are its unit tests (torn reads,
//! blocked reads, caching).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use fnhcl_base::txtar::TxtarFile;
use fnhcl_crossplane::DirectoryReader;
use fnhcl_crossplane::cache::{CacheStats, Lru};

/// Deepest subdirectory read, counted from the program directory (whose
/// own files are at depth 0).
const MAX_DEPTH: usize = 16;
/// Most `*.hcl` files read from one program directory.
const MAX_FILES: usize = 1024;
/// Most directory entries (files and directories, hidden ones excluded)
/// looked at while walking one program directory.
const MAX_ENTRIES: usize = 16 * 1024;
/// Largest sum of the `*.hcl` files' sizes (a program is text; this guards
/// mistakes such as pointing `path` at a large volume). The function's own
/// program size limit, checked afterwards, is smaller by default.
const MAX_TOTAL_BYTES: u64 = 16 << 20;

/// One `*.hcl` file found by the walk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct FileStamp {
    /// Relative to the program directory, `/`-separated.
    name: String,
    len: u64,
    modified: Option<SystemTime>,
}

/// What identifies the directory tree's state: each `*.hcl` file's relative
/// name, size and modification time (following symlinks, as ConfigMap
/// volumes use them), sorted by name.
type Signature = Vec<FileStamp>;

/// Directories whose files are kept by default.
pub const DEFAULT_FILES_CACHE_MAX_ENTRIES: usize = 64;
/// Default byte budget of the files kept: 64 MiB (four directories of the
/// largest size read, [`MAX_TOTAL_BYTES`]; a typical program is a few
/// tens of KiB).
pub const DEFAULT_FILES_CACHE_MAX_BYTES: usize = 64 << 20;

/// What a cached directory costs beyond its files' names and contents
/// (the entry, the vectors, allocator rounding; an estimate).
const DIR_OVERHEAD: usize = 256;
/// The same per file (a name and a stamp in the signature, the
/// `TxtarFile`).
const FILE_OVERHEAD: usize = 96;

/// One cached directory: its files as last read. The same files read
/// again are answered with the same `Arc`, which the program cache
/// recognises without hashing the sources again.
struct Cached {
    files: Arc<Vec<TxtarFile>>,
}

struct Cache {
    lru: Lru<PathBuf, Cached>,
    hits: u64,
    misses: u64,
}

/// Reads `*.hcl` files from the local file system, as consistent snapshots.
pub struct FsDirectoryReader {
    cache: Mutex<Cache>,
    /// Longest a directory read may take (see [`READ_TIMEOUT`]).
    timeout: Duration,
    /// Directories whose last read timed out and is still blocked: a new
    /// read of one fails at once instead of starting another thread that
    /// would block too.
    hung: Arc<Mutex<HashSet<PathBuf>>>,
}

/// Default longest time a directory read may take. A read blocked longer
/// (a hung NFS or FUSE mount) is an error for its request, and its thread
/// is left to finish on its own: the request's scheduling slot is free
/// again, and FileSystem programs of other directories go on.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for FsDirectoryReader {
    fn default() -> FsDirectoryReader {
        FsDirectoryReader::with_limits(
            DEFAULT_FILES_CACHE_MAX_ENTRIES,
            DEFAULT_FILES_CACHE_MAX_BYTES,
        )
    }
}

impl FsDirectoryReader {
    /// A reader keeping the files of at most 64 directories and 64 MiB.
    pub fn new() -> FsDirectoryReader {
        FsDirectoryReader::default()
    }

    /// A reader keeping the files of at most `max_entries` directories
    /// (at least one), whose estimated memory adds up to at most
    /// `max_bytes`. A directory bigger than that is read on every request.
    pub fn with_limits(max_entries: usize, max_bytes: usize) -> FsDirectoryReader {
        FsDirectoryReader {
            cache: Mutex::new(Cache {
                lru: Lru::new(max_entries, max_bytes),
                hits: 0,
                misses: 0,
            }),
            timeout: READ_TIMEOUT,
            hung: Arc::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Size, bounds and counters of the cache (a hit is a request whose
    /// directory had not changed).
    pub fn stats(&self) -> CacheStats {
        let cache = self.lock();
        CacheStats {
            entries: cache.lru.len(),
            bytes: cache.lru.bytes(),
            max_entries: cache.lru.max_entries(),
            max_bytes: cache.lru.max_bytes(),
            hits: cache.hits,
            misses: cache.misses,
            evictions: cache.lru.evictions(),
        }
    }
}

/// The estimated memory of a cached directory.
fn weigh(dir: &Path, files: &[TxtarFile]) -> usize {
    files
        .iter()
        .fold(DIR_OVERHEAD + dir.as_os_str().len(), |n, f| {
            // The name twice: in the signature and in the file.
            n.saturating_add(2 * f.name.len() + f.data.len() + FILE_OVERHEAD)
        })
}

/// The state of one walk: what was found and how much was looked at.
struct Walk {
    files: Signature,
    entries: usize,
    bytes: u64,
}

/// `prefix` joined with `name`, `/`-separated.
fn relative(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

/// Collects the `*.hcl` files under `dir` (whose name relative to the
/// program directory is `prefix`, empty for the program directory itself).
/// `ancestors` holds the canonical paths of `dir` and the directories above
/// it, to catch symlinks that lead back up (loops).
fn walk_dir(
    dir: &Path,
    prefix: &str,
    depth: usize,
    ancestors: &mut Vec<PathBuf>,
    walk: &mut Walk,
) -> Result<(), String> {
    let at = |e: std::io::Error| {
        if prefix.is_empty() {
            e.to_string()
        } else {
            format!("{prefix}: {e}")
        }
    };
    let mut subdirs = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(at)? {
        let entry = entry.map_err(at)?;
        // Names that are not UTF-8 cannot be HCL file names.
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        // Hidden entries: ConfigMap volumes' `..data` machinery, `.git`,
        // editors' swap files.
        if name.starts_with('.') {
            continue;
        }
        walk.entries += 1;
        if walk.entries > MAX_ENTRIES {
            return Err(format!(
                "more than {MAX_ENTRIES} files and directories under the program directory"
            ));
        }
        let rel = relative(prefix, &name);
        // `metadata` follows symlinks. An entry that cannot be looked at
        // (a dangling symlink) matters only when it names a program file.
        let meta = match std::fs::metadata(entry.path()) {
            Ok(m) => m,
            Err(e) if name.ends_with(".hcl") => return Err(format!("{rel}: {e}")),
            Err(_) => continue,
        };
        if meta.is_dir() {
            subdirs.push((entry.path(), rel));
        } else if meta.is_file() && name.ends_with(".hcl") {
            if walk.files.len() >= MAX_FILES {
                return Err(format!(
                    "more than {MAX_FILES} .hcl files under the program directory"
                ));
            }
            walk.bytes = walk.bytes.saturating_add(meta.len());
            if walk.bytes > MAX_TOTAL_BYTES {
                return Err(format!(
                    "the .hcl files under the program directory are larger than {MAX_TOTAL_BYTES} bytes together"
                ));
            }
            walk.files.push(FileStamp {
                name: rel,
                len: meta.len(),
                modified: meta.modified().ok(),
            });
        }
    }
    for (path, rel) in subdirs {
        if depth + 1 > MAX_DEPTH {
            return Err(format!(
                "{rel}: directories are nested more than {MAX_DEPTH} levels deep"
            ));
        }
        let canonical = std::fs::canonicalize(&path).map_err(|e| format!("{rel}: {e}"))?;
        if ancestors.contains(&canonical) {
            return Err(format!(
                "{rel}: symlink loop (it leads back to {})",
                canonical.display()
            ));
        }
        ancestors.push(canonical);
        let result = walk_dir(&path, &rel, depth + 1, ancestors, walk);
        ancestors.pop();
        result?;
    }
    Ok(())
}

fn signature(dir: &Path) -> Result<Signature, String> {
    let root = std::fs::canonicalize(dir).map_err(|e| e.to_string())?;
    let mut walk = Walk {
        files: Vec::new(),
        entries: 0,
        bytes: 0,
    };
    walk_dir(dir, "", 0, &mut vec![root], &mut walk)?;
    walk.files.sort();
    Ok(walk.files)
}

/// How many times a directory is read before a tree that keeps changing
/// under the reader is an error.
const MAX_ATTEMPTS: u32 = 10;
/// A file modified less than this long ago may still be being written
/// (an editor or `cat >` rewriting it in place): it is read once it has
/// been left alone that long.
const SETTLE: Duration = Duration::from_millis(25);
/// The first pause before reading a changed tree again; it doubles.
const RETRY_PAUSE: Duration = Duration::from_millis(5);

/// Why one attempt at reading a consistent snapshot failed.
enum Attempt {
    /// The tree changed while it was read (a file named here): read again.
    Changed(String),
    /// A file was modified within [`SETTLE`]: wait this long, read again.
    Unsettled(String, Duration),
    /// An error that another attempt would not mend.
    Failed(String),
}

/// The file of `sig` modified last, if less than [`SETTLE`] before `now`,
/// and how long until it (and so every file) has settled: one wait, not one
/// per recently written file. A modification time in the future (a skewed
/// clock) does not count: waiting would not change it.
fn unsettled(sig: &Signature, now: SystemTime) -> Option<(String, Duration)> {
    sig.iter()
        .filter_map(|stamp| {
            let age = now.duration_since(stamp.modified?).ok()?;
            (age < SETTLE).then(|| (stamp.name.clone(), SETTLE - age))
        })
        .max_by_key(|(_, wait)| *wait)
}

/// One attempt: the walk, every file read, the walk again. The snapshot
/// holds only if both walks agree (names, sizes, modification times) and
/// each file read has the size its walk saw.
fn attempt(dir: &Path) -> Result<Vec<TxtarFile>, Attempt> {
    let before = signature(dir).map_err(Attempt::Failed)?;
    if let Some((name, wait)) = unsettled(&before, SystemTime::now()) {
        return Err(Attempt::Unsettled(name, wait));
    }
    let mut files = Vec::with_capacity(before.len());
    for stamp in &before {
        let bytes = match std::fs::read(dir.join(&stamp.name)) {
            Ok(bytes) => bytes,
            // Removed between the walk and the read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Attempt::Changed(stamp.name.clone()));
            }
            Err(e) => return Err(Attempt::Failed(format!("{}: {e}", stamp.name))),
        };
        if bytes.len() as u64 != stamp.len {
            return Err(Attempt::Changed(stamp.name.clone()));
        }
        let data = String::from_utf8(bytes)
            .map_err(|_| Attempt::Failed(format!("{}: the file is not UTF-8 text", stamp.name)))?;
        files.push(TxtarFile {
            name: stamp.name.clone(),
            data,
        });
    }
    let after = signature(dir).map_err(Attempt::Failed)?;
    if after != before {
        // The first file that differs, or the first one only one walk saw.
        let name = before
            .iter()
            .zip(&after)
            .find(|(b, a)| b != a)
            .map(|(b, _)| b)
            .or_else(|| before.get(after.len()).or_else(|| after.get(before.len())))
            .map_or_else(|| "a file".to_owned(), |s| s.name.clone());
        return Err(Attempt::Changed(name));
    }
    Ok(files)
}

/// Reads every `*.hcl` file under `dir` as one consistent snapshot: a tree
/// that changes while it is read, or a file modified within [`SETTLE`], is
/// read again (at most [`MAX_ATTEMPTS`] times, pausing in between). A file
/// that is empty (or only white space) is an error naming it: a program
/// file is never empty on purpose, and a file truncated to be rewritten in
/// place is empty for a moment; read as a program of no resources it
/// would tell Crossplane to delete every composed resource.
fn read_snapshot(dir: &Path) -> Result<Vec<TxtarFile>, String> {
    let mut pause = RETRY_PAUSE;
    let mut last = String::new();
    for _ in 0..MAX_ATTEMPTS {
        match attempt(dir) {
            Ok(files) => {
                if let Some(empty) = files.iter().find(|f| f.data.trim().is_empty()) {
                    return Err(format!(
                        "{}: the file is empty (a program file must hold HCL; a file being rewritten in place is read again on the next call)",
                        empty.name
                    ));
                }
                return Ok(files);
            }
            Err(Attempt::Failed(e)) => return Err(e),
            Err(Attempt::Unsettled(name, wait)) => {
                last = name;
                std::thread::sleep(wait);
            }
            Err(Attempt::Changed(name)) => {
                last = name;
                std::thread::sleep(pause);
                pause = pause.saturating_mul(2).min(SETTLE * 4);
            }
        }
    }
    Err(format!(
        "{last}: the files kept changing while they were read ({MAX_ATTEMPTS} attempts); the program is read again on the next call"
    ))
}

/// `read(dir)` on a thread of its own, waited for at most `timeout`. A
/// read that takes longer is an error; `dir` stays in `hung` until that
/// read ends, and reads of it meanwhile fail at once.
fn read_within<T: Send + 'static>(
    dir: &Path,
    timeout: Duration,
    hung: &Arc<Mutex<HashSet<PathBuf>>>,
    read: impl FnOnce(&Path) -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let lock = || hung.lock().unwrap_or_else(PoisonError::into_inner);
    let too_slow = || {
        format!(
            "reading the directory took longer than {} s (a hung mount?); it is read again once the blocked read ends",
            timeout.as_secs_f64()
        )
    };
    if lock().contains(dir) {
        return Err(too_slow());
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let owned = dir.to_path_buf();
    let marks = hung.clone();
    std::thread::Builder::new()
        .name("fs-read".to_owned())
        .spawn(move || {
            let result = read(&owned);
            // Under the lock, so that the waiter either takes the result
            // or has marked the directory and gone (then the mark is
            // cleared here).
            let mut marks = marks.lock().unwrap_or_else(PoisonError::into_inner);
            if tx.send(result).is_err() {
                marks.remove(&owned);
            }
        })
        .map_err(|e| format!("cannot start a thread to read the directory: {e}"))?;
    match rx.recv_timeout(timeout) {
        Ok(result) => result,
        Err(_) => {
            let mut marks = lock();
            // The read may have ended just now.
            if let Ok(result) = rx.try_recv() {
                return result;
            }
            marks.insert(dir.to_path_buf());
            drop(rx);
            Err(too_slow())
        }
    }
}

impl DirectoryReader for FsDirectoryReader {
    fn read_hcl_files(&self, path: &str) -> Result<Arc<Vec<TxtarFile>>, String> {
        let dir = PathBuf::from(path);
        // Read on every call, and compared by content: an edit that keeps
        // a file's size and modification time is still seen.
        let files = read_within(&dir, self.timeout, &self.hung, read_snapshot)?;
        let mut cache = self.lock();
        let found = cache
            .lru
            .get(&dir)
            .filter(|c| *c.files == files)
            .map(|c| c.files.clone());
        if let Some(files) = found {
            cache.hits += 1;
            return Ok(files);
        }
        cache.misses += 1;
        let files = Arc::new(files);
        let weight = weigh(&dir, &files);
        cache.lru.insert(
            dir,
            Cached {
                files: files.clone(),
            },
            weight,
        );
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, text).expect("write");
    }

    fn names(files: &[TxtarFile]) -> Vec<&str> {
        files.iter().map(|f| f.name.as_str()).collect()
    }

    fn path_str(dir: &Path) -> &str {
        dir.to_str().expect("utf-8 path")
    }

    #[test]
    fn reads_sorted_hcl_files_and_reloads_on_change() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "b.hcl", "b");
        write(d, "a.hcl", "a");
        write(d, "notes.txt", "x");
        write(d, ".hidden.hcl", "x");
        write(d, ".git/config.hcl", "x");
        write(d, "..data/main.hcl", "x");
        std::fs::create_dir(d.join("sub.hcl")).expect("mkdir");
        let reader = FsDirectoryReader::new();
        let files = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(names(&files), ["a.hcl", "b.hcl"]);
        let again = reader.read_hcl_files(path_str(d)).expect("readable");
        assert!(Arc::ptr_eq(&files, &again), "unchanged directory is cached");
        std::fs::write(d.join("a.hcl"), "changed").expect("write");
        let changed = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(changed[0].data, "changed");
    }

    #[test]
    fn reads_module_subdirectories_with_relative_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "main.hcl", "root");
        write(d, "modules/bucket/main.hcl", "bucket");
        write(d, "modules/bucket/params.hcl", "params");
        write(d, "modules/bucket/README.md", "x");
        write(d, "modules/app/db/main.hcl", "db");
        write(d, "modules/.cache/x.hcl", "hidden");
        let reader = FsDirectoryReader::new();
        let files = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(
            names(&files),
            [
                "main.hcl",
                "modules/app/db/main.hcl",
                "modules/bucket/main.hcl",
                "modules/bucket/params.hcl",
            ]
        );
        assert_eq!(files[2].data, "bucket");
        let again = reader.read_hcl_files(path_str(d)).expect("readable");
        assert!(Arc::ptr_eq(&files, &again), "unchanged tree is cached");

        // A change deep in a module reloads.
        std::fs::write(d.join("modules/bucket/main.hcl"), "bucket v2").expect("write");
        let changed = reader.read_hcl_files(path_str(d)).expect("readable");
        assert!(!Arc::ptr_eq(&files, &changed));
        assert_eq!(changed[2].data, "bucket v2");
        // So does a new file in a subdirectory, and a removed one.
        write(d, "modules/app/main.hcl", "app");
        let added = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(added[1].name, "modules/app/db/main.hcl");
        assert_eq!(added[2].name, "modules/app/main.hcl");
        std::fs::remove_dir_all(d.join("modules/app")).expect("rm");
        let removed = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(
            names(&removed),
            [
                "main.hcl",
                "modules/bucket/main.hcl",
                "modules/bucket/params.hcl",
            ]
        );
    }

    /// The layout kubelet gives a ConfigMap volume whose items have paths
    /// with directories: the data lives in a hidden timestamped directory,
    /// `..data` points at it, and the visible names are symlinks through
    /// `..data`. An update writes a new timestamped directory and swaps
    /// `..data`.
    #[cfg(unix)]
    #[test]
    fn configmap_volume_layout_with_a_module_directory() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "..2024_01_01/main.hcl", "root v1");
        write(d, "..2024_01_01/modules/bucket/main.hcl", "bucket v1");
        symlink("..2024_01_01", d.join("..data")).expect("symlink");
        symlink("..data/main.hcl", d.join("main.hcl")).expect("symlink");
        symlink("..data/modules", d.join("modules")).expect("symlink");
        let reader = FsDirectoryReader::new();
        let files = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(names(&files), ["main.hcl", "modules/bucket/main.hcl"]);
        assert_eq!(files[1].data, "bucket v1");

        write(d, "..2024_01_02/main.hcl", "root v1");
        write(
            d,
            "..2024_01_02/modules/bucket/main.hcl",
            "bucket v2 (longer)",
        );
        symlink("..2024_01_02", d.join("..data_tmp")).expect("symlink");
        std::fs::rename(d.join("..data_tmp"), d.join("..data")).expect("swap");
        std::fs::remove_dir_all(d.join("..2024_01_01")).expect("rm");
        let files = reader.read_hcl_files(path_str(d)).expect("readable");
        assert_eq!(files[1].data, "bucket v2 (longer)");
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_are_errors() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "main.hcl", "root");
        write(d, "modules/bucket/main.hcl", "bucket");
        symlink("../..", d.join("modules/bucket/up")).expect("symlink");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("loop");
        assert!(err.starts_with("modules/bucket/up: symlink loop"), "{err}");

        // A symlink to a sibling directory is no loop: its files appear
        // under both names.
        std::fs::remove_file(d.join("modules/bucket/up")).expect("rm");
        symlink("bucket", d.join("modules/store")).expect("symlink");
        let files = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect("readable");
        assert_eq!(
            names(&files),
            [
                "main.hcl",
                "modules/bucket/main.hcl",
                "modules/store/main.hcl"
            ]
        );
        // Dangling symlinks: irrelevant unless they name a program file.
        symlink("nowhere", d.join("gone")).expect("symlink");
        assert!(FsDirectoryReader::new().read_hcl_files(path_str(d)).is_ok());
        symlink("nowhere.hcl", d.join("gone.hcl")).expect("symlink");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("dangling program file");
        assert!(err.starts_with("gone.hcl: "), "{err}");
    }

    #[test]
    fn depth_is_bounded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let deepest = vec!["d"; MAX_DEPTH].join("/");
        write(d, &format!("{deepest}/x.hcl"), "x");
        let files = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect("readable");
        assert_eq!(names(&files), [format!("{deepest}/x.hcl").as_str()]);
        write(d, &format!("{deepest}/d/x.hcl"), "x");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("too deep");
        assert_eq!(
            err,
            format!("{deepest}/d: directories are nested more than {MAX_DEPTH} levels deep")
        );
    }

    #[test]
    fn file_count_and_total_size_are_bounded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        for i in 0..MAX_FILES {
            write(d, &format!("m/f{i:04}.hcl"), "x");
        }
        let files = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect("readable");
        assert_eq!(files.len(), MAX_FILES);
        write(d, "one-more.hcl", "x");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("too many");
        assert_eq!(
            err,
            format!("more than {MAX_FILES} .hcl files under the program directory")
        );

        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "small.hcl", "x");
        let big = std::fs::File::create(d.join("big.hcl")).expect("create");
        big.set_len(MAX_TOTAL_BYTES).expect("sparse file");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("too big");
        assert!(err.contains("larger than 16777216 bytes together"), "{err}");
    }

    /// Three program directories, each with one `main.hcl` of `size` bytes.
    fn three_dirs(size: usize) -> (tempfile::TempDir, Vec<String>) {
        let root = tempfile::tempdir().expect("tempdir");
        let mut dirs = Vec::new();
        for name in ["a", "b", "c"] {
            write(&root.path().join(name), "main.hcl", &"x".repeat(size));
            dirs.push(path_str(&root.path().join(name)).to_owned());
        }
        (root, dirs)
    }

    #[test]
    fn cache_is_bounded_by_entries_least_recently_used_first() {
        let (_root, dirs) = three_dirs(10);
        let reader = FsDirectoryReader::with_limits(2, 1 << 20);
        let a = reader.read_hcl_files(&dirs[0]).expect("a");
        let b = reader.read_hcl_files(&dirs[1]).expect("b");
        // Touch a: b is now the least recently used.
        let a2 = reader.read_hcl_files(&dirs[0]).expect("a");
        assert!(Arc::ptr_eq(&a, &a2));
        reader.read_hcl_files(&dirs[2]).expect("c");
        let s = reader.stats();
        assert_eq!((s.entries, s.hits, s.misses, s.evictions), (2, 1, 3, 1));
        let a3 = reader.read_hcl_files(&dirs[0]).expect("a");
        assert!(Arc::ptr_eq(&a, &a3), "the recently used directory stayed");
        let b2 = reader.read_hcl_files(&dirs[1]).expect("b");
        assert!(!Arc::ptr_eq(&b, &b2), "the least recently used was evicted");
        assert_eq!(b, b2);
        assert_eq!(reader.stats().evictions, 2);
    }

    #[test]
    fn cache_is_bounded_by_bytes() {
        let (_root, dirs) = three_dirs(1_000);
        let one = weigh(
            Path::new(&dirs[0]),
            &[TxtarFile {
                name: "main.hcl".into(),
                data: "x".repeat(1_000),
            }],
        );
        // Room for two directories by bytes, ten by entries.
        let reader = FsDirectoryReader::with_limits(10, 2 * one + one / 2);
        let a = reader.read_hcl_files(&dirs[0]).expect("a");
        reader.read_hcl_files(&dirs[1]).expect("b");
        assert_eq!(reader.stats().bytes, 2 * one);
        reader.read_hcl_files(&dirs[0]).expect("a");
        reader.read_hcl_files(&dirs[2]).expect("c");
        let s = reader.stats();
        assert_eq!((s.entries, s.bytes, s.evictions), (2, 2 * one, 1));
        assert!(Arc::ptr_eq(
            &a,
            &reader.read_hcl_files(&dirs[0]).expect("a")
        ));
        assert_eq!(reader.stats().hits, 2);

        // A directory over the whole budget is read, not kept.
        let reader = FsDirectoryReader::with_limits(10, one - 1);
        let a = reader.read_hcl_files(&dirs[0]).expect("a");
        let again = reader.read_hcl_files(&dirs[0]).expect("a");
        assert!(!Arc::ptr_eq(&a, &again));
        assert_eq!(reader.stats().entries, 0);
    }

    #[test]
    fn a_changing_directory_does_not_grow_the_cache() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let reader = FsDirectoryReader::with_limits(4, 1 << 20);
        for i in 1..=50 {
            write(d, "main.hcl", &"x".repeat(i));
            let files = reader.read_hcl_files(path_str(d)).expect("readable");
            assert_eq!(files[0].data.len(), i);
            let s = reader.stats();
            assert_eq!((s.entries, s.evictions), (1, 0));
            assert_eq!(s.bytes, weigh(d, &files));
        }
        assert_eq!(reader.stats().misses, 50);
    }

    #[test]
    fn an_edit_keeping_size_and_modification_time_is_seen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "main.hcl", "kind = 1");
        let stamp = std::fs::metadata(d.join("main.hcl"))
            .and_then(|m| m.modified())
            .expect("mtime");
        let reader = FsDirectoryReader::new();
        assert_eq!(
            reader.read_hcl_files(path_str(d)).expect("read")[0].data,
            "kind = 1"
        );
        write(d, "main.hcl", "kind = 2");
        std::fs::File::options()
            .write(true)
            .open(d.join("main.hcl"))
            .and_then(|f| f.set_modified(stamp))
            .expect("set mtime");
        assert_eq!(
            reader.read_hcl_files(path_str(d)).expect("read")[0].data,
            "kind = 2"
        );
    }

    #[test]
    fn empty_and_blank_files_are_errors_naming_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        write(d, "main.hcl", "x = 1");
        write(d, "m/empty.hcl", "");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("empty");
        assert!(err.starts_with("m/empty.hcl: the file is empty"), "{err}");
        write(d, "m/empty.hcl", "\n \t\n");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(d))
            .expect_err("blank");
        assert!(err.starts_with("m/empty.hcl: the file is empty"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_utf8_is_an_error_naming_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("main.hcl"), b"x = \"\xff\"").expect("write");
        let err = FsDirectoryReader::new()
            .read_hcl_files(path_str(dir.path()))
            .expect_err("not utf-8");
        assert_eq!(err, "main.hcl: the file is not UTF-8 text");
    }

    #[test]
    fn a_file_modified_a_moment_ago_is_waited_for() {
        let now = SystemTime::now();
        let stamp = |name: &str, ago: Duration| FileStamp {
            name: name.into(),
            len: 1,
            modified: now.checked_sub(ago),
        };
        let old = stamp("a.hcl", Duration::from_secs(5));
        assert_eq!(unsettled(&vec![old.clone()], now), None);
        let fresh = stamp("b.hcl", Duration::from_millis(5));
        let fresher = stamp("a0.hcl", Duration::from_millis(2));
        let (name, wait) = unsettled(&vec![old.clone(), fresh, fresher], now).expect("unsettled");
        // The file written last decides the one wait.
        assert_eq!(name, "a0.hcl");
        assert_eq!(wait, SETTLE - Duration::from_millis(2));
        // A modification time ahead of the clock is not waited for.
        let ahead = FileStamp {
            modified: now.checked_add(Duration::from_secs(60)),
            ..old
        };
        assert_eq!(unsettled(&vec![ahead], now), None);
    }

    #[test]
    fn a_blocked_read_times_out_and_its_directory_fails_fast_until_it_ends() {
        let hung = Arc::new(Mutex::new(HashSet::new()));
        let dir = Path::new("/nfs/programs");
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let (ended_tx, ended) = std::sync::mpsc::channel::<()>();
        let err = read_within(dir, Duration::from_millis(20), &hung, move |_| {
            let _ = blocked.recv();
            let _ = ended_tx.send(());
            Ok(1)
        })
        .expect_err("times out");
        assert!(
            err.starts_with("reading the directory took longer than 0.02 s"),
            "{err}"
        );
        // While it is blocked, the same directory fails at once, without
        // starting another read; another directory reads as usual.
        let started = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = started.clone();
        let again = read_within(dir, Duration::from_secs(5), &hung, move |_| {
            s.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(2)
        });
        assert!(again.is_err());
        assert!(!started.load(std::sync::atomic::Ordering::SeqCst));
        let other = read_within(Path::new("/other"), Duration::from_secs(5), &hung, |_| {
            Ok(3)
        });
        assert_eq!(other, Ok(3));
        // Once the blocked read ends, the directory is read again.
        release.send(()).expect("release");
        ended.recv().expect("ended");
        let mut after = Err(String::new());
        for _ in 0..1000 {
            after = read_within(dir, Duration::from_secs(5), &hung, |_| Ok(4));
            if after.is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(after, Ok(4));
    }

    #[test]
    fn missing_directory_is_an_error() {
        let reader = FsDirectoryReader::new();
        assert!(reader.read_hcl_files("/nonexistent/dir/for/test").is_err());
    }
}
