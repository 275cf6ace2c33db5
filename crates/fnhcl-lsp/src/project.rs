//! One program in the workspace: a composition directory (with the module
//! directories it imports), its current snapshot and what is known of its
//! schemas. Rebuilt from disk plus open buffers when something changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap};
use fnhcl_ide::Snapshot;
use fnhcl_schema::SchemaSet;

/// Where a project's CRDs stand.
#[derive(Clone, Debug)]
pub(crate) enum Crds {
    /// Being loaded in the background (generation of the load).
    Loading(u64),
    /// Loaded; `None` when no `.crd-sources.yaml` or `.crds/` is found.
    Loaded(Option<Arc<SchemaSet>>),
    /// The sources exist but could not be read.
    Failed(String),
}

#[derive(Debug)]
pub(crate) struct Project {
    pub(crate) root: PathBuf,
    /// The current snapshot; `None` when something changed since.
    snapshot: Option<Arc<Snapshot>>,
    /// The composite's schema (from the XRD), read when the project is
    /// made and when a YAML file changes.
    pub(crate) options: fnhcl_analyze::Options,
    /// The last CRDs known for the project's source (kept while a reload
    /// is under way).
    pub(crate) crds: Crds,
    /// Where they come from (`.crd-sources.yaml` or `.crds/`, found walking
    /// up): projects with the same source share one load.
    pub(crate) crd_source: Option<PathBuf>,
    /// Why the directory could not be loaded as a package (a missing
    /// module directory, an unreadable `composition.yaml`): reported on
    /// the project's files, which are then analysed on their own.
    pub(crate) load_error: Option<String>,
    /// The live preview of the current snapshot, once asked for.
    preview: Option<Arc<fnhcl_ide::Preview>>,
}

impl Project {
    pub(crate) fn new(root: PathBuf, crd_source: Option<PathBuf>, crds: Crds) -> Project {
        let options = fnhcl_project::analysis_options(&root, None).unwrap_or_default();
        Project {
            root,
            snapshot: None,
            options,
            crds,
            crd_source,
            load_error: None,
            preview: None,
        }
    }

    pub(crate) fn invalidate(&mut self) {
        self.snapshot = None;
        self.preview = None;
    }

    /// The live preview of the current snapshot (see [`crate::preview`]).
    /// `overlay` (the open buffers) is asked for only when something must
    /// be rebuilt.
    pub(crate) fn preview(
        &mut self,
        overlay: impl FnOnce() -> fnhcl_project::Overlay,
    ) -> Arc<fnhcl_ide::Preview> {
        if let Some(p) = &self.preview {
            return p.clone();
        }
        let overlay = overlay();
        let snap = match &self.snapshot {
            Some(s) => s.clone(),
            None => self.rebuild(&overlay),
        };
        let inputs = crate::preview::inputs(&self.root, &overlay);
        let p = Arc::new(fnhcl_ide::preview(&snap, &inputs));
        self.preview = Some(p.clone());
        p
    }

    pub(crate) fn reload_xrd(&mut self) {
        self.options = fnhcl_project::analysis_options(&self.root, None).unwrap_or_default();
        self.invalidate();
    }

    /// The current snapshot, rebuilt from disk and the open buffers
    /// (`overlay`, asked for only then) if stale.
    pub(crate) fn snapshot(
        &mut self,
        overlay: impl FnOnce() -> fnhcl_project::Overlay,
    ) -> Arc<Snapshot> {
        if let Some(s) = &self.snapshot {
            return s.clone();
        }
        self.rebuild(&overlay())
    }

    fn rebuild(&mut self, overlay: &fnhcl_project::Overlay) -> Arc<Snapshot> {
        let (sources, error) = load(&self.root, overlay);
        self.load_error = error;
        let mut options = self.options.clone();
        if let Crds::Loaded(Some(set)) = &self.crds {
            options.schemas = Some(set.clone());
        }
        let snap = Arc::new(Snapshot::new(sources, options));
        self.snapshot = Some(snap.clone());
        snap
    }

    /// The absolute path of a file of the snapshot.
    pub(crate) fn path_of(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// The name a path has in this project's snapshots, if it is under the
    /// root.
    pub(crate) fn name_of(&self, path: &Path) -> Option<String> {
        let rel = path.strip_prefix(&self.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// The diagnostics of the project: the analysis, plus the load error.
    pub(crate) fn diagnostics(&self, snapshot: &Snapshot) -> Vec<Diagnostic> {
        let mut out = snapshot.diagnostics().to_vec();
        if let Some(e) = &self.load_error {
            out.push(Diagnostic::error(
                "Cannot load the composition directory",
                e.clone(),
            ));
        }
        out
    }
}

/// The files of the program at `root`: the package `fn-hcl package` would
/// make; when that fails, the `*.hcl` files directly in `root` alone.
fn load(root: &Path, overlay: &fnhcl_project::Overlay) -> (Arc<SourceMap>, Option<String>) {
    match fnhcl_project::load_dir_with(root, overlay) {
        Ok(files) => (fnhcl_project::source_map(&files), None),
        Err(e) => {
            let files = fnhcl_project::load_own_hcl(root, overlay);
            (fnhcl_project::source_map(&files), Some(format!("{e:#}")))
        }
    }
}
