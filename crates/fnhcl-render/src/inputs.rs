//! What `render` reads, already read: file names and contents. The caller
//! (the CLI, the test runner) does the IO; this crate only parses.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::RenderError;
use crate::fields::{get_at, str_at};
use crate::version::CrossplaneVersion;
use crate::yaml;

/// One input file: a name for messages and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }
}

/// Everything `crossplane render` takes from files and flags.
#[derive(Clone, Debug, Default)]
pub struct RenderInputs {
    /// `COMPOSITE_RESOURCE`: the first document is the XR.
    pub xr: Option<Source>,
    /// `COMPOSITION`: the first document is the Composition.
    pub composition: Option<Source>,
    /// `FUNCTIONS`: Function manifests. `None` when not given.
    pub functions: Option<Vec<Source>>,
    /// `-o/--observed-resources`.
    pub observed: Vec<Source>,
    /// `--extra-resources` (`-e` until v1.20).
    pub extra_resources: Vec<Source>,
    /// `--required-resources` (v2).
    pub required_resources: Vec<Source>,
    /// `--function-credentials`: `v1 Secret`s.
    pub function_credentials: Vec<Source>,
    /// `--context-files key=path`, with the file's content.
    pub context_files: Vec<(String, Source)>,
    /// `--context-values key=value`.
    pub context_values: Vec<(String, String)>,
    /// `--xrd`: the XR's CompositeResourceDefinition; its schema defaults
    /// are applied to the XR.
    pub xrd: Option<Source>,
    /// `--required-schemas` (OpenAPI v3 documents) and `--crds` (CRDs,
    /// XRDs): the schemas that answer the functions' schema requirements.
    pub schemas: Vec<Source>,
    /// An `Operation`, `CronOperation` or `WatchOperation` to render
    /// instead of an XR (D39, as `crossplane alpha render op`): `xr` and
    /// `composition` are then not used.
    pub operation: Option<Source>,
    /// `-w/--watched-resource`: a WatchOperation's watched object.
    pub watched: Option<Source>,
}

/// How to render.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    /// `-r`: print non-fatal results as `Result` documents.
    pub include_function_results: bool,
    /// `-c`: print the final context as a `Context` document.
    pub include_context: bool,
    /// `-x`: copy the input XR's `spec` and `metadata` into the output XR.
    pub include_full_xr: bool,
    /// `--include-full-operation`: print the Operation's `spec` too.
    pub include_full_operation: bool,
    /// A pipeline step of another function is an error instead of a warning.
    pub fail_on_foreign: bool,
    /// A block discarded by an evaluation error fails the render instead
    /// of a warning on stderr.
    pub strict: bool,
    /// The Crossplane release whose output to reproduce.
    pub version: CrossplaneVersion,
    /// `functionRef` names that are this function, in addition to the ones
    /// recognised from the Functions file or the step input.
    pub function_names: Vec<String>,
}

/// The inputs, parsed and checked.
pub(crate) struct Loaded {
    pub xr: Map<String, Value>,
    pub composition: Map<String, Value>,
    /// Function manifests by name; `None` without a Functions file.
    pub functions: Option<Vec<Map<String, Value>>>,
    /// Observed composed resources by composition resource name (a later
    /// document with the same name replaces an earlier one).
    pub observed: BTreeMap<String, Map<String, Value>>,
    pub extra: Vec<Map<String, Value>>,
    pub required: Vec<Map<String, Value>>,
    pub secrets: Vec<Map<String, Value>>,
    pub context: Map<String, Value>,
    pub schemas: fnhcl_schema::SchemaSet,
}

pub(crate) const CRN_ANNOTATION: &str = "crossplane.io/composition-resource-name";

pub(crate) fn objects(src: &Source, what: &str) -> Result<Vec<Map<String, Value>>, RenderError> {
    let docs = yaml::load_stream(&src.text)
        .map_err(|e| RenderError::new(format!("cannot load {what} from {:?}: {e}", src.name)))?;
    let mut out = Vec::with_capacity(docs.len());
    for d in docs {
        match d {
            Value::Object(m) => {
                if !matches!(m.get("kind"), Some(Value::String(k)) if !k.is_empty()) {
                    return Err(RenderError::new(format!(
                        "cannot load {what} from {:?}: Object 'Kind' is missing in the document",
                        src.name
                    )));
                }
                out.push(m);
            }
            _ => {
                return Err(RenderError::new(format!(
                    "cannot load {what} from {:?}: a document is not a YAML object",
                    src.name
                )));
            }
        }
    }
    Ok(out)
}

pub(crate) fn many(srcs: &[Source], what: &str) -> Result<Vec<Map<String, Value>>, RenderError> {
    let mut out = Vec::new();
    for s in srcs {
        out.extend(objects(s, what)?);
    }
    Ok(out)
}

pub(crate) fn first(src: &Source, what: &str) -> Result<Map<String, Value>, RenderError> {
    objects(src, what)?.into_iter().next().ok_or_else(|| {
        RenderError::new(format!(
            "cannot load {what} from {:?}: the file has no YAML document",
            src.name
        ))
    })
}

fn parse_context_value(
    key: &str,
    text: &str,
    version: CrossplaneVersion,
) -> Result<Value, RenderError> {
    if version.capabilities() {
        // 2.2+: YAML (a superset of JSON).
        let docs = yaml::load_stream(text).map_err(|e| {
            RenderError::new(format!("cannot parse context value for key {key:?}: {e}"))
        })?;
        return Ok(docs.into_iter().next().unwrap_or(Value::Null));
    }
    serde_json::from_str(text).map_err(|e| {
        RenderError::new(format!(
            "cannot parse context value for key {key:?} as JSON: {e}"
        ))
    })
}

pub(crate) fn load(inputs: &RenderInputs, opts: &RenderOptions) -> Result<Loaded, RenderError> {
    let v = opts.version;
    let xr_src = inputs
        .xr
        .as_ref()
        .ok_or_else(|| RenderError::new("no composite resource given"))?;
    let comp_src = inputs
        .composition
        .as_ref()
        .ok_or_else(|| RenderError::new("no composition given"))?;
    let mut xr = first(xr_src, "composite resource")?;
    if let Some(xrd_src) = &inputs.xrd {
        let xrd = first(xrd_src, "XRD")?;
        let schema = crate::xrd::schema_for(&xrd, &xr)
            .map_err(|e| e.wrap(&format!("cannot default XR from XRD {:?}", xrd_src.name)))?;
        let mut v = Value::Object(xr);
        crate::xrd::apply_defaults(&mut v, schema);
        xr = match v {
            Value::Object(m) => m,
            _ => Map::new(),
        };
    }
    let composition = first(comp_src, "composition")?;
    if str_at(&composition, &["apiVersion"]) != Some("apiextensions.crossplane.io/v1")
        || str_at(&composition, &["kind"]) != Some("Composition")
    {
        return Err(RenderError::new(format!(
            "cannot load composition from {:?}: not a Composition (want apiVersion apiextensions.crossplane.io/v1, kind Composition)",
            comp_src.name
        )));
    }
    if v.conditions() {
        check_composition(&xr, &composition, v)?;
    }
    let comp_name = str_at(&composition, &["metadata", "name"]).unwrap_or_default();
    if str_at(&composition, &["spec", "mode"]) != Some("Pipeline") {
        return Err(RenderError::new(format!(
            "render only supports Composition Function pipelines: Composition {comp_name:?} must use spec.mode: Pipeline"
        )));
    }
    let functions = functions(inputs)?;
    let secrets = many(&inputs.function_credentials, "function credentials")?;
    let mut observed = BTreeMap::new();
    for o in many(&inputs.observed, "observed resources")? {
        let key = str_at(&o, &["metadata", "annotations", CRN_ANNOTATION])
            .unwrap_or_default()
            .to_owned();
        observed.insert(key, o);
    }
    let extra = many(&inputs.extra_resources, "extra resources")?;
    let required = many(&inputs.required_resources, "required resources")?;
    let mut context = Map::new();
    for (key, src) in &inputs.context_files {
        let value = parse_context_value(key, &src.text, v)?;
        context.insert(key.clone(), value);
    }
    for (key, text) in &inputs.context_values {
        let value = parse_context_value(key, text, v)?;
        context.insert(key.clone(), value);
    }
    Ok(Loaded {
        xr,
        composition,
        functions,
        observed,
        extra,
        required,
        secrets,
        context,
        schemas: crate::schemas::load(&inputs.schemas)?,
    })
}

/// The Function manifests, checked; `None` without a Functions file.
pub(crate) fn functions(
    inputs: &RenderInputs,
) -> Result<Option<Vec<Map<String, Value>>>, RenderError> {
    Ok(match &inputs.functions {
        None => None,
        Some(srcs) => {
            let fns = many(srcs, "functions")?;
            for f in &fns {
                let api = str_at(f, &["apiVersion"]).unwrap_or_default();
                if !api.starts_with("pkg.crossplane.io/")
                    || str_at(f, &["kind"]) != Some("Function")
                {
                    return Err(RenderError::new(format!(
                        "cannot load functions: {} {:?} is not a pkg.crossplane.io Function",
                        str_at(f, &["kind"]).unwrap_or_default(),
                        str_at(f, &["metadata", "name"]).unwrap_or_default()
                    )));
                }
            }
            Some(fns)
        }
    })
}

fn check_composition(
    xr: &Map<String, Value>,
    comp: &Map<String, Value>,
    v: CrossplaneVersion,
) -> Result<(), RenderError> {
    let want_kind = str_at(comp, &["spec", "compositeTypeRef", "kind"]).unwrap_or_default();
    let want_api = str_at(comp, &["spec", "compositeTypeRef", "apiVersion"]).unwrap_or_default();
    let kind = str_at(xr, &["kind"]).unwrap_or_default();
    let api = str_at(xr, &["apiVersion"]).unwrap_or_default();
    if want_kind != kind {
        return Err(RenderError::new(format!(
            "composition's compositeTypeRef.kind ({want_kind}) does not match XR's kind ({kind})"
        )));
    }
    if want_api != api {
        return Err(RenderError::new(format!(
            "composition's compositeTypeRef.apiVersion ({want_api}) does not match XR's apiVersion ({api})"
        )));
    }
    let selector_path: &[&str] = if v.v2() {
        &["spec", "crossplane", "compositionSelector", "matchLabels"]
    } else {
        &["spec", "compositionSelector", "matchLabels"]
    };
    if let Some(Value::Object(want)) = get_at(xr, selector_path) {
        let labels = get_at(comp, &["metadata", "labels"]).and_then(Value::as_object);
        for (k, val) in want {
            let have = labels.and_then(|l| l.get(k));
            if have != Some(val) {
                return Err(RenderError::new(format!(
                    "composition {:?} does not match XR's composition selector: label {k:?} {}",
                    str_at(comp, &["metadata", "name"]).unwrap_or_default(),
                    match have {
                        None => "is missing".to_owned(),
                        Some(h) => format!("is {h}, want {val}"),
                    }
                )));
            }
        }
    }
    Ok(())
}
