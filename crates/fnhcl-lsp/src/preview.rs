//! The live preview's inputs: the files `fn-hcl render` would be given,
//! found next to the program (open buffers first, then the disk).
//!
//! - `xr.yaml` (or `xr.yml`): the XR. Without it there is no preview.
//! - `observed.yaml` and/or `observed/*.yaml`: observed composed resources.
//! - `extra-resources.yaml`, `required-resources.yaml`.
//! - `context.json` or `context.yaml`: an object whose top-level keys are
//!   the context's keys (what `--context-files key=file` gives one by one).

use std::path::Path;

use fnhcl_ide::{PreviewInputs, PreviewSource};
use fnhcl_project::Overlay;

fn read(path: &Path, overlay: &Overlay) -> Option<PreviewSource> {
    let text = match overlay.files.get(path) {
        Some(t) => t.clone(),
        None => std::fs::read_to_string(path).ok()?,
    };
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(PreviewSource::new(name, text))
}

/// The inputs found in `root`.
pub(crate) fn inputs(root: &Path, overlay: &Overlay) -> PreviewInputs {
    let one = |name: &str| read(&root.join(name), overlay);
    let mut observed: Vec<PreviewSource> = one("observed.yaml").into_iter().collect();
    if let Ok(rd) = std::fs::read_dir(root.join("observed")) {
        let mut paths: Vec<_> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        paths.sort();
        observed.extend(paths.iter().filter_map(|p| read(p, overlay)));
    }
    PreviewInputs {
        xr: one("xr.yaml").or_else(|| one("xr.yml")),
        observed,
        extra_resources: one("extra-resources.yaml").into_iter().collect(),
        required_resources: one("required-resources.yaml").into_iter().collect(),
        context_files: one("context.json")
            .or_else(|| one("context.yaml"))
            .map(|src| context_entries(&src))
            .unwrap_or_default(),
    }
}

/// The top-level entries of a context file, each as a JSON text.
fn context_entries(src: &PreviewSource) -> Vec<(String, PreviewSource)> {
    let Ok(docs) = fnhcl_render::yaml::load_stream(&src.text) else {
        return Vec::new();
    };
    let Some(serde_json::Value::Object(map)) = docs.into_iter().next() else {
        return Vec::new();
    };
    map.into_iter()
        .map(|(k, v)| (k, PreviewSource::new(src.name.clone(), v.to_string())))
        .collect()
}
