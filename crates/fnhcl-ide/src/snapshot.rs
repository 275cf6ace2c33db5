//! One program as the editor sees it at one moment.

use std::sync::{Arc, OnceLock};

use fnhcl_base::{Diagnostic, FileId, SourceMap};
use fnhcl_syntax::ast;

use crate::resolve::Index;
use crate::walk::Outline;

/// The files of one program and what is known of its schemas. Cheap to
/// share (`Arc`); derived data (parses, analysis) is computed on first use
/// and kept for the snapshot's life.
#[derive(Debug)]
pub struct Snapshot {
    sources: Arc<SourceMap>,
    options: fnhcl_analyze::Options,
    parses: Vec<OnceLock<(ast::Body, Vec<Diagnostic>)>>,
    analysis: OnceLock<Vec<Diagnostic>>,
    index: OnceLock<Index>,
    outlines: Vec<OnceLock<Arc<Outline>>>,
}

impl Snapshot {
    pub fn new(sources: Arc<SourceMap>, options: fnhcl_analyze::Options) -> Snapshot {
        let parses = (0..sources.len()).map(|_| OnceLock::new()).collect();
        let outlines = (0..sources.len()).map(|_| OnceLock::new()).collect();
        Snapshot {
            sources,
            options,
            parses,
            analysis: OnceLock::new(),
            index: OnceLock::new(),
            outlines,
        }
    }

    pub fn sources(&self) -> &Arc<SourceMap> {
        &self.sources
    }

    /// What the analyser knows beyond the files: the XRD's schema, the CRDs.
    pub fn options(&self) -> &fnhcl_analyze::Options {
        &self.options
    }

    /// The file named `name` (its path relative to the program's directory).
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        self.sources
            .files()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// The syntax tree of a file and its parse errors (a file with errors
    /// gives what the parser's recovery could read).
    pub fn parse(&self, file: FileId) -> &(ast::Body, Vec<Diagnostic>) {
        self.parses[file.0 as usize].get_or_init(|| fnhcl_syntax::parse_file(&self.sources, file))
    }

    /// Everything `fn-hcl analyze` reports for the program, every file.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        self.analysis
            .get_or_init(|| fnhcl_analyze::analyze_with(&self.sources, &self.options))
    }

    /// Every definition and use of a name in the program (navigation,
    /// rename, symbols).
    pub(crate) fn index(&self) -> &Index {
        self.index.get_or_init(|| Index::build(self))
    }

    /// What a file declares as far as its tokens tell (completion, hover,
    /// signature help); shared with earlier snapshots holding the same text.
    pub(crate) fn outline(&self, file: FileId) -> Arc<Outline> {
        self.outlines[file.0 as usize]
            .get_or_init(|| crate::walk::cached_outline(&self.sources.get(file).text))
            .clone()
    }
}
