//! The message loop and the workspace state: open documents, projects,
//! published diagnostics.

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender, select};
use fnhcl_base::Severity;
use fnhcl_ide::{FileId, Snapshot};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, InitializeParams, Location, NumberOrString,
    PublishDiagnosticsParams, Uri,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value as Json;

use crate::convert::{path_to_uri, range, uri_to_path};
use crate::crds_loader::Loader;
use crate::documents::Document;
use crate::handlers;
use crate::project::{Crds, Project};

/// What background threads report.
pub(crate) enum Background {
    Crds {
        source: PathBuf,
        generation: u64,
        result: Result<Option<fnhcl_schema::SchemaSet>, String>,
    },
}

pub(crate) struct Server {
    sender: Sender<Message>,
    /// Loads CRD sources, one at a time, on one thread.
    crds_loader: Loader,
    docs: BTreeMap<PathBuf, Document>,
    /// Projects by root directory.
    projects: BTreeMap<PathBuf, Project>,
    /// CRDs by source (`.crd-sources.yaml` or `.crds/`), loaded once for
    /// every project that uses them.
    crd_sources: BTreeMap<PathBuf, Crds>,
    /// Program root of each directory with an open file.
    roots: BTreeMap<PathBuf, PathBuf>,
    /// What was last published, by URI.
    published: BTreeMap<String, Vec<lsp_types::Diagnostic>>,
    /// Something changed since diagnostics were last published.
    dirty: bool,
    generation: u64,
    shutdown: bool,
    next_id: i32,
    /// The client re-asks for inlay hints when told to
    /// (`workspace/inlayHint/refresh`).
    inlay_refresh: bool,
    /// The client takes snippets in completion items.
    pub(crate) snippets: bool,
}

/// Runs the server on an established connection until `exit`.
pub(crate) fn run(conn: &Connection, settings: &crate::Settings) -> anyhow::Result<()> {
    // Input that ends before initialization ends the server normally.
    let (id, params) = match conn.initialize_start() {
        Err(e) if e.channel_is_disconnected() => return Ok(()),
        started => started?,
    };
    let init: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "fn-hcl", "version": env!("CARGO_PKG_VERSION") },
    });
    match conn.initialize_finish(id, result) {
        Err(e) if e.channel_is_disconnected() => return Ok(()),
        finished => finished?,
    }
    let (bg_tx, bg_rx) = crossbeam_channel::unbounded();
    let limits = fnhcl_project::crds::Limits {
        max_bytes: settings.crds_max_bytes,
        ..Default::default()
    };
    let load = move |source: &Path, cancel: &std::sync::atomic::AtomicBool| {
        // Discovery from the source's directory finds the source itself.
        let start = source.parent().map(Path::to_path_buf).unwrap_or_default();
        fnhcl_project::crds::load_with(&[], &start, &limits, cancel).map_err(|e| format!("{e:#}"))
    };
    let mut server = Server {
        sender: conn.sender.clone(),
        crds_loader: Loader::new(bg_tx, Arc::new(load)),
        docs: BTreeMap::new(),
        projects: BTreeMap::new(),
        crd_sources: BTreeMap::new(),
        roots: BTreeMap::new(),
        published: BTreeMap::new(),
        dirty: false,
        generation: 0,
        shutdown: false,
        next_id: 0,
        inlay_refresh: init
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|i| i.refresh_support)
            .unwrap_or(false),
        snippets: snippet_support(&init),
    };
    server.register_watchers(&init);
    server.serve(&conn.receiver, &bg_rx);
    Ok(())
}

fn capabilities() -> lsp_types::ServerCapabilities {
    use lsp_types::*;
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        document_formatting_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        declaration_provider: Some(DeclarationCapability::Simple(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        semantic_tokens_provider: Some(handlers::tokens::capability()),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        })),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([".", "[", "\""].map(str::to_owned).to_vec()),
            ..Default::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(["(", ","].map(str::to_owned).to_vec()),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        inlay_hint_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![handlers::RENDER_COMMAND.to_owned()],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Whether the client's completion takes snippets.
fn snippet_support(init: &InitializeParams) -> bool {
    init.capabilities
        .text_document
        .as_ref()
        .and_then(|t| t.completion.as_ref())
        .and_then(|c| c.completion_item.as_ref())
        .and_then(|i| i.snippet_support)
        .unwrap_or(false)
}

#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Exit,
}

impl Server {
    fn serve(&mut self, messages: &Receiver<Message>, background: &Receiver<Background>) {
        loop {
            select! {
                recv(messages) -> msg => {
                    let Ok(msg) = msg else { return };
                    if self.handle(msg) == Flow::Exit {
                        return;
                    }
                }
                recv(background) -> ev => {
                    if let Ok(ev) = ev {
                        self.on_background(ev);
                    }
                }
            }
            // Take every message already waiting before publishing, so that
            // a burst of edits is analysed once.
            while let Ok(msg) = messages.try_recv() {
                if self.handle(msg) == Flow::Exit {
                    return;
                }
            }
            self.publish_diagnostics();
        }
    }

    fn handle(&mut self, msg: Message) -> Flow {
        match msg {
            Message::Request(req) => {
                let resp = self.request(req);
                self.send(Message::Response(resp));
                Flow::Continue
            }
            Message::Notification(n) => self.notification(n),
            Message::Response(_) => Flow::Continue,
        }
    }

    fn send(&self, msg: Message) {
        // The client is gone if this fails; the loop ends when its
        // receiver closes.
        let _ = self.sender.send(msg);
    }

    fn notify<N: notif::Notification>(&self, params: N::Params) {
        self.send(Message::Notification(Notification::new(
            N::METHOD.to_owned(),
            params,
        )));
    }

    /// A message in the client's log (its output panel).
    pub(crate) fn log(&self, typ: lsp_types::MessageType, message: String) {
        self.notify::<notif::LogMessage>(lsp_types::LogMessageParams { typ, message });
    }

    fn request(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        if req.method == "shutdown" {
            self.shutdown = true;
            return Response::new_ok(id, Json::Null);
        }
        if self.shutdown {
            return Response::new_err(
                id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".to_owned(),
            );
        }
        let method = req.method.clone();
        // A bug in a feature must not take the server down: the request
        // fails, the state stays as it was before it.
        match std::panic::catch_unwind(AssertUnwindSafe(|| self.route(req))) {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code, message),
            Err(_) => {
                self.log(
                    lsp_types::MessageType::ERROR,
                    format!("fn-hcl: internal error in {method}"),
                );
                Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    format!("internal error in {method}"),
                )
            }
        }
    }

    fn route(&mut self, req: Request) -> Result<Json, (i32, String)> {
        match req.method.as_str() {
            "textDocument/formatting" => call(self, req.params, handlers::formatting),
            "textDocument/definition" | "textDocument/declaration" => {
                call(self, req.params, handlers::definition)
            }
            "textDocument/references" => call(self, req.params, handlers::references),
            "textDocument/prepareRename" => call(self, req.params, handlers::prepare_rename),
            "textDocument/rename" => call(self, req.params, handlers::rename),
            "textDocument/documentSymbol" => call(self, req.params, handlers::document_symbols),
            "workspace/symbol" => call(self, req.params, handlers::workspace_symbols),
            "textDocument/foldingRange" => call(self, req.params, handlers::folding_ranges),
            "textDocument/codeAction" => call(self, req.params, handlers::code_actions),
            "textDocument/semanticTokens/full" => {
                call(self, req.params, handlers::semantic_tokens_full)
            }
            "textDocument/completion" => call(self, req.params, handlers::completion),
            "textDocument/signatureHelp" => call(self, req.params, handlers::signature_help),
            "textDocument/hover" => call(self, req.params, handlers::hover),
            "textDocument/inlayHint" => call(self, req.params, handlers::inlay_hints),
            "workspace/executeCommand" => call(self, req.params, handlers::execute_command),
            m => Err((
                ErrorCode::MethodNotFound as i32,
                format!("method not supported: {m}"),
            )),
        }
    }

    fn notification(&mut self, n: Notification) -> Flow {
        match n.method.as_str() {
            notif::Exit::METHOD => return Flow::Exit,
            notif::DidOpenTextDocument::METHOD => {
                if let Ok(p) = parse::<lsp_types::DidOpenTextDocumentParams>(n.params)
                    && let Some(path) = uri_to_path(&p.text_document.uri)
                {
                    self.docs.insert(
                        path.clone(),
                        Document {
                            version: p.text_document.version,
                            text: p.text_document.text,
                        },
                    );
                    self.ensure_project(&path);
                    self.changed(&path);
                }
            }
            notif::DidChangeTextDocument::METHOD => {
                if let Ok(p) = parse::<lsp_types::DidChangeTextDocumentParams>(n.params)
                    && let Some(path) = uri_to_path(&p.text_document.uri)
                    && let Some(doc) = self.docs.get_mut(&path)
                {
                    doc.apply(p.text_document.version, p.content_changes);
                    self.changed(&path);
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                if let Ok(p) = parse::<lsp_types::DidCloseTextDocumentParams>(n.params)
                    && let Some(path) = uri_to_path(&p.text_document.uri)
                {
                    self.docs.remove(&path);
                    self.changed(&path);
                    self.drop_unused_projects();
                }
            }
            notif::DidSaveTextDocument::METHOD => self.dirty = true,
            notif::DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = parse::<lsp_types::DidChangeWatchedFilesParams>(n.params) {
                    for change in p.changes {
                        if let Some(path) = uri_to_path(&change.uri) {
                            self.file_changed_on_disk(&path);
                        }
                    }
                }
            }
            _ => {}
        }
        Flow::Continue
    }

    /// Asks the client to tell us about changes on disk, if it can.
    fn register_watchers(&mut self, init: &InitializeParams) {
        let dynamic = init
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        if !dynamic {
            return;
        }
        let options = serde_json::json!({
            "watchers": [
                { "globPattern": "**/*.hcl" },
                { "globPattern": "**/*.{yaml,yml,json}" },
                { "globPattern": "**/.crd-sources.yaml" },
            ]
        });
        let params = lsp_types::RegistrationParams {
            registrations: vec![lsp_types::Registration {
                id: "fn-hcl-watched-files".to_owned(),
                method: notif::DidChangeWatchedFiles::METHOD.to_owned(),
                register_options: Some(options),
            }],
        };
        self.next_id += 1;
        let req = Request::new(
            RequestId::from(self.next_id),
            "client/registerCapability".to_owned(),
            params,
        );
        self.send(Message::Request(req));
    }

    /// The program root of `dir` (cached until files change on disk).
    fn root_for(&mut self, dir: &Path) -> PathBuf {
        if let Some(r) = self.roots.get(dir) {
            return r.clone();
        }
        let root = fnhcl_project::program_root(dir, &self.overlay());
        self.roots.insert(dir.to_path_buf(), root.clone());
        root
    }

    fn ensure_project(&mut self, path: &Path) -> Option<PathBuf> {
        let dir = path.parent()?;
        let root = self.root_for(dir);
        if !self.projects.contains_key(&root) {
            let source = fnhcl_project::crds::source_for(&root);
            let crds = self.crds_of(source.as_deref(), &root);
            self.projects
                .insert(root.clone(), Project::new(root.clone(), source, crds));
        }
        Some(root)
    }

    /// The CRDs of a source: known, being loaded, or now starting to load.
    fn crds_of(&mut self, source: Option<&Path>, root: &Path) -> Crds {
        let Some(source) = source else {
            self.log(
                lsp_types::MessageType::INFO,
                format!(
                    "fn-hcl: no CRD sources (.crd-sources.yaml or .crds/) found for {}",
                    root.display()
                ),
            );
            return Crds::Loaded(None);
        };
        if let Some(state) = self.crd_sources.get(source) {
            return state.clone();
        }
        self.generation += 1;
        let state = Crds::Loading(self.generation);
        self.crd_sources.insert(source.to_path_buf(), state.clone());
        self.load_crds(source, self.generation);
        state
    }

    /// Asks the loader for `source` (coalesced with the requests for it
    /// not yet served; a load of it under way is cancelled).
    fn load_crds(&self, source: &Path, generation: u64) {
        if let Err(e) = self.crds_loader.request(source, generation) {
            self.log(
                lsp_types::MessageType::ERROR,
                format!("fn-hcl: cannot start loading CRDs: {e}"),
            );
        }
    }

    fn on_background(&mut self, ev: Background) {
        match ev {
            Background::Crds {
                source,
                generation,
                result,
            } => {
                if !matches!(self.crd_sources.get(&source), Some(Crds::Loading(g)) if *g == generation)
                {
                    return;
                }
                let state = match result {
                    Ok(set) => Crds::Loaded(set.map(Arc::new)),
                    Err(e) => Crds::Failed(e),
                };
                self.crd_sources.insert(source.clone(), state.clone());
                for p in self.projects.values_mut() {
                    if p.crd_source.as_deref() == Some(source.as_path()) {
                        p.crds = state.clone();
                        p.invalidate();
                    }
                }
                let (typ, message) = match &state {
                    Crds::Loaded(Some(set)) => (
                        lsp_types::MessageType::INFO,
                        format!(
                            "fn-hcl: {} kinds loaded from CRD sources {}",
                            set.len(),
                            source.display()
                        ),
                    ),
                    Crds::Loaded(None) => (
                        lsp_types::MessageType::INFO,
                        format!("fn-hcl: no CRDs in {}", source.display()),
                    ),
                    Crds::Failed(e) => (
                        lsp_types::MessageType::WARNING,
                        format!("fn-hcl: cannot load CRDs: {e}"),
                    ),
                    Crds::Loading(_) => return,
                };
                self.log(typ, message);
                self.dirty = true;
            }
        }
    }

    /// CRD sources may have changed: every project finds its source again
    /// and each source is loaded once more (a project keeps its last CRDs
    /// until the new ones are there).
    fn reload_crds(&mut self) {
        self.crd_sources.clear();
        let roots: Vec<PathBuf> = self.projects.keys().cloned().collect();
        for root in roots {
            let source = fnhcl_project::crds::source_for(&root);
            let crds = self.crds_of(source.as_deref(), &root);
            if let Some(p) = self.projects.get_mut(&root) {
                if !matches!(crds, Crds::Loading(_)) || p.crd_source != source {
                    p.crds = crds;
                    p.invalidate();
                }
                p.crd_source = source;
            }
        }
        self.dirty = true;
    }

    /// An open buffer changed: its projects need a new snapshot.
    fn changed(&mut self, path: &Path) {
        for p in self.projects.values_mut() {
            if path.starts_with(&p.root) {
                p.invalidate();
            }
        }
        self.dirty = true;
    }

    fn file_changed_on_disk(&mut self, path: &Path) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let ext = path.extension().and_then(|x| x.to_str()).unwrap_or("");
        self.changed(path);
        if ext == "hcl" {
            // An import may have appeared or gone.
            self.roots.clear();
            return;
        }
        if !matches!(ext, "yaml" | "yml" | "json") {
            return;
        }
        // The preview's inputs (xr.yaml, observed resources, ...) live
        // under a project's root: its hints are stale now.
        if self.projects.keys().any(|root| path.starts_with(root)) {
            self.refresh_inlay_hints();
        }
        let in_crds_dir = path.components().any(|c| c.as_os_str() == ".crds");
        let parent = path.parent();
        for p in self.projects.values_mut() {
            if parent == Some(p.root.as_path()) && name != ".crd-sources.yaml" {
                // composition.yaml or the XRD next to the program.
                p.reload_xrd();
            }
        }
        // A YAML file inside a composition directory is an input of the
        // program (XRD, XR, observed resources); one elsewhere may be a CRD
        // that a `.crd-sources.yaml` names.
        let in_a_project = self.projects.keys().any(|root| path.starts_with(root));
        if in_crds_dir || name == ".crd-sources.yaml" || !in_a_project {
            self.reload_crds();
        }
    }

    /// Asks the client to re-request inlay hints, if it can.
    fn refresh_inlay_hints(&mut self) {
        if !self.inlay_refresh {
            return;
        }
        self.next_id += 1;
        let req = Request::new(
            RequestId::from(self.next_id),
            "workspace/inlayHint/refresh".to_owned(),
            Json::Null,
        );
        self.send(Message::Request(req));
    }

    fn drop_unused_projects(&mut self) {
        let docs = &self.docs;
        self.projects
            .retain(|root, _| docs.keys().any(|p| p.starts_with(root)));
    }

    pub(crate) fn overlay(&self) -> fnhcl_project::Overlay {
        overlay_of(&self.docs)
    }

    /// The current snapshot of the program `uri` belongs to, and the
    /// file's id in it.
    pub(crate) fn file(&mut self, uri: &Uri) -> Option<(Arc<Snapshot>, FileId)> {
        let path = uri_to_path(uri)?;
        let root = self.ensure_project(&path)?;
        let docs = &self.docs;
        let project = self.projects.get_mut(&root)?;
        let snap = project.snapshot(|| overlay_of(docs));
        let id = snap.file_id(&project.name_of(&path)?)?;
        Some((snap, id))
    }

    /// The current snapshot of every project, with its root directory.
    pub(crate) fn snapshots(&mut self) -> Vec<(PathBuf, Arc<Snapshot>)> {
        let docs = &self.docs;
        self.projects
            .iter_mut()
            .map(|(root, p)| (root.clone(), p.snapshot(|| overlay_of(docs))))
            .collect()
    }

    /// The live preview of the program `uri` belongs to (computed once per
    /// snapshot).
    pub(crate) fn preview(&mut self, uri: &Uri) -> Option<Arc<fnhcl_ide::Preview>> {
        let path = uri_to_path(uri)?;
        let root = self.ensure_project(&path)?;
        let docs = &self.docs;
        Some(self.projects.get_mut(&root)?.preview(|| overlay_of(docs)))
    }

    /// Publishes what changed since the last time: every file of every
    /// project gets its current list, and a file that had diagnostics but
    /// is no longer part of any project gets an empty one, so nothing stale
    /// is left behind.
    fn publish_diagnostics(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let docs = &self.docs;
        let mut next: BTreeMap<String, (Uri, Vec<lsp_types::Diagnostic>)> = BTreeMap::new();
        for project in self.projects.values_mut() {
            let snap = project.snapshot(|| overlay_of(docs));
            let sources = snap.sources();
            let uri_of = |id: FileId| path_to_uri(&project.path_of(&sources.get(id).name));
            for (id, _) in sources.files() {
                let uri = uri_of(id);
                next.entry(uri.as_str().to_owned())
                    .or_insert_with(|| (uri, Vec::new()));
            }
            let Some((first, _)) = sources.files().next() else {
                continue;
            };
            for d in project.diagnostics(&snap) {
                let file = d.primary.map_or(first, |s| s.file);
                let f = sources.get(file);
                let lsp_range = d.primary.map(|s| range(f, s)).unwrap_or_default();
                let related: Vec<DiagnosticRelatedInformation> = d
                    .labels
                    .iter()
                    .map(|l| DiagnosticRelatedInformation {
                        location: Location::new(
                            uri_of(l.span.file),
                            range(sources.get(l.span.file), l.span),
                        ),
                        message: l.message.clone(),
                    })
                    .collect();
                let message = crate::convert::message(&d);
                let uri = uri_of(file);
                let entry = next
                    .entry(uri.as_str().to_owned())
                    .or_insert_with(|| (uri, Vec::new()));
                entry.1.push(lsp_types::Diagnostic {
                    range: lsp_range,
                    severity: Some(match d.severity {
                        Severity::Error => DiagnosticSeverity::ERROR,
                        Severity::Warning => DiagnosticSeverity::WARNING,
                    }),
                    code: d.code.map(|c| NumberOrString::String(c.to_owned())),
                    source: Some("fn-hcl".to_owned()),
                    message,
                    related_information: (!related.is_empty()).then_some(related),
                    data: handlers::fix_data(sources, &d),
                    ..Default::default()
                });
            }
        }
        let gone: Vec<String> = self
            .published
            .keys()
            .filter(|k| !next.contains_key(*k))
            .cloned()
            .collect();
        for key in gone {
            self.published.remove(&key);
            if let Ok(uri) = key.parse::<Uri>() {
                self.notify::<notif::PublishDiagnostics>(PublishDiagnosticsParams::new(
                    uri,
                    Vec::new(),
                    None,
                ));
            }
        }
        for (key, (uri, diags)) in next {
            if self.published.get(&key) == Some(&diags) {
                continue;
            }
            let version = uri_to_path(&uri)
                .and_then(|p| self.docs.get(&p))
                .map(|d| d.version);
            self.notify::<notif::PublishDiagnostics>(PublishDiagnosticsParams::new(
                uri,
                diags.clone(),
                version,
            ));
            self.published.insert(key, diags);
        }
    }
}

/// The open buffers as the project loader takes them: a copy of their
/// texts, made only when a snapshot or preview has to be rebuilt.
fn overlay_of(docs: &BTreeMap<PathBuf, Document>) -> fnhcl_project::Overlay {
    fnhcl_project::Overlay {
        files: docs
            .iter()
            .map(|(p, d)| (p.clone(), d.text.clone()))
            .collect(),
    }
}

fn parse<P: DeserializeOwned>(params: Json) -> Result<P, serde_json::Error> {
    serde_json::from_value(params)
}

/// Decodes a request's params, runs the handler and encodes its result.
fn call<P: DeserializeOwned, R: Serialize>(
    server: &mut Server,
    params: Json,
    handler: fn(&mut Server, P) -> handlers::Result<R>,
) -> Result<Json, (i32, String)> {
    let params = parse::<P>(params).map_err(|e| {
        (
            ErrorCode::InvalidParams as i32,
            format!("invalid params: {e}"),
        )
    })?;
    let result = handler(server, params).map_err(|e| (ErrorCode::RequestFailed as i32, e))?;
    serde_json::to_value(result).map_err(|e| (ErrorCode::InternalError as i32, e.to_string()))
}
