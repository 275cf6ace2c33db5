//! Modules (D24-D31): one module's compilation, its environment scan and
//! the resolution of module labels.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Body, Structure};

use super::blocks::names_of;
use super::env::{Compiler, Env, MAX_INSTANCES, ModEnv};
use super::instances::{index_items, instance_names, switch_names};
use super::params::export_resource_name;
use super::types::{Item, Module, Param, items_at};
use crate::layout::{self, Layout};
use crate::schema;

impl<'l> Compiler<'l> {
    pub(super) fn new(
        layout: &'l Layout,
        module: usize,
        compiled: &'l [Option<Module>],
        interrupt: Option<&'l fnhcl_expr::Interrupt>,
    ) -> Compiler<'l> {
        Compiler {
            interrupt,
            checked: 0,
            stopped: false,
            sigs: HashMap::new(),
            diags: Vec::new(),
            resources: HashMap::new(),
            collections: HashMap::new(),
            requirements: HashMap::new(),
            instances: HashMap::new(),
            switches: HashMap::new(),
            layout,
            module,
            compiled,
            exported_resources: Vec::new(),
            param_uses: Vec::new(),
            export_reads: Vec::new(),
            demand: crate::Demand::nothing(),
            scope_ids: 0,
            composite_uses: Vec::new(),
            operation_marks: false,
            reads_watched: false,
            depends: Vec::new(),
        }
    }

    pub(super) fn is_root(&self) -> bool {
        self.module == 0
    }

    /// Compiles the files of one module.
    pub(super) fn module(&mut self, files: &[&Body]) -> Option<Module> {
        let mut contents = Vec::new();
        for body in files {
            contents.push(schema::content(
                body,
                None,
                &schema::TOP,
                false,
                &mut self.diags,
            ));
        }
        // Function signatures first (an `invoke` may name a function
        // defined later or in another file).
        let mut fn_blocks = Vec::new();
        for content in &contents {
            fn_blocks.extend(content.blocks_of("function"));
        }
        let mut seen_fns: HashMap<String, Span> = HashMap::new();
        for b in &fn_blocks {
            self.function_signature(b, &mut seen_fns);
        }
        let mut functions = HashMap::new();
        for b in &fn_blocks {
            if let Some(f) = self.function(b) {
                functions.entry(f.name.clone()).or_insert(f);
            }
        }
        let mut param_blocks = Vec::new();
        for content in &contents {
            param_blocks.extend(content.blocks_of("param"));
        }
        let params = self.params(&param_blocks);
        let mod_env = self.mod_env(files, &params, !param_blocks.is_empty());
        let top_env = Env {
            req: true,
            self_keys: None,
            each: false,
            bound: None,
            module: Some(Arc::new(mod_env)),
        };
        // The top-level scope: every file's locals blocks together.
        let mut local_blocks = Vec::new();
        for content in &contents {
            local_blocks.extend(content.blocks_of("locals"));
        }
        let (top, env) = self.scope(&local_blocks, &top_env);
        let mut items = Vec::new();
        for content in &contents {
            items.extend(self.items(content, &env));
        }
        let mut export_blocks = Vec::new();
        for content in &contents {
            export_blocks.extend(content.blocks_of("export"));
        }
        if self.is_root()
            && let Some(b) = export_blocks.first()
        {
            self.err(
                Diagnostic::error(
                    "export block outside a module",
                    "export blocks belong in a module directory that another program imports",
                )
                .with_code(codes::MODULE_IMPORT)
                .with_span(b.ident.span),
            );
        }
        let mut seen = HashMap::new();
        let exports = self.exports(&export_blocks, &env, &mut seen);
        self.check_exported_resources();
        let dep_kinds = self.check_depends();
        // Ids and positions of instances and switches.
        let mut instances = Vec::new();
        let mut switches = Vec::new();
        index_items(
            &mut items,
            &mut Vec::new(),
            &mut instances,
            &mut switches,
            0,
        );
        let instance_ids = instance_names(&items, &instances);
        let switch_ids = switch_names(&items, &switches);
        let names = names_of(&items);
        self.check_prefixed_duplicates(&names);
        let mut instance_count = 0usize;
        for (path, idx) in &instances {
            if let Some(Item::Module(inst)) = items_at(&items, path).and_then(|i| i.get(*idx)) {
                let inner = self
                    .compiled
                    .get(inst.module)
                    .and_then(Option::as_ref)
                    .map_or(0, |m| m.instance_count);
                instance_count = instance_count.saturating_add(1 + inner);
                if instance_count > MAX_INSTANCES {
                    self.err(
                        Diagnostic::error(
                            format!("too many module instances (more than {MAX_INSTANCES})"),
                            "nested module instances multiply; this program would create more than the limit",
                        )
                        .with_span(inst.header)
                        .with_code(codes::PROGRAM),
                    );
                    break;
                }
            }
        }
        Some(Module {
            dir: self.layout.modules[self.module].dir.clone(),
            top,
            items,
            functions,
            params,
            exports,
            instances,
            instance_ids,
            switches,
            switch_ids,
            names,
            instance_count,
            dep_kinds,
        })
    }

    /// The static view of the module's parameters, instances and switches.
    fn mod_env(&mut self, files: &[&Body], params: &[Param], has_params: bool) -> ModEnv {
        let mut env = ModEnv {
            params: has_params.then(|| params.iter().map(|p| p.name.to_string()).collect()),
            ..ModEnv::default()
        };
        for body in files {
            self.scan(body, &mut env, 0);
        }
        env
    }

    fn scan(&self, body: &Body, env: &mut ModEnv, depth: usize) {
        if depth > 64 {
            return;
        }
        for s in &body.items {
            let Structure::Block(b) = s else { continue };
            match &*b.ident.name {
                "module" if b.labels.len() == 2 => {
                    env.declares_instances = true;
                    let target = self.resolve_module(&b.labels[0].value);
                    let exports = target
                        .and_then(|m| self.compiled.get(m).and_then(Option::as_ref))
                        .map(|m| m.exports.iter().map(|e| e.name.to_string()).collect());
                    env.instances
                        .push((b.labels[1].value.clone(), exports, target));
                }
                "switch" if b.labels.len() == 1 => {
                    env.declares_switches = true;
                    let mut cases = Vec::new();
                    let mut exports: Vec<String> = Vec::new();
                    for cs in &b.body.items {
                        let Structure::Block(c) = cs else { continue };
                        let name = match (&*c.ident.name, c.labels.first()) {
                            ("case", Some(l)) => l.value.clone(),
                            ("default", None) => "default".to_owned(),
                            _ => continue,
                        };
                        cases.push(name);
                        for x in &c.body.items {
                            let Structure::Block(e) = x else { continue };
                            if &*e.ident.name != "export" {
                                continue;
                            }
                            for it in &e.body.items {
                                let n = match it {
                                    Structure::Attribute(a) => a.name.name.to_string(),
                                    Structure::Block(r) => export_resource_name(r),
                                };
                                if !exports.contains(&n) {
                                    exports.push(n);
                                }
                            }
                        }
                        self.scan(&c.body, env, depth + 1);
                    }
                    env.switches
                        .push((b.labels[0].value.clone(), cases, exports));
                }
                "group" => self.scan(&b.body, env, depth + 1),
                _ => {}
            }
        }
    }

    /// The module a `module` block's first label names, if any.
    pub(super) fn resolve_module(&self, label: &str) -> Option<usize> {
        let src = &self.layout.modules[self.module];
        if layout::is_path_label(label) {
            let path = layout::normalize_path(label).ok()?;
            return src.by_path.get(&path).copied();
        }
        src.aliases.get(label).map(|(m, _)| *m)
    }
}
