//! `docs/operations.md` stays true: every ```yaml block is a Kubernetes
//! manifest that parses (apiVersion, kind and metadata.name set), the
//! manifests refer to each other consistently, the `fn-hcl serve` flags it
//! passes exist, and every `function_hcl_*` metric it names is one the
//! server registers.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

const BIN: &str = env!("CARGO_BIN_EXE_fn-hcl");

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bodies of the ```yaml fenced blocks of a markdown text, with the
/// line each starts on.
fn yaml_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut current {
            None if line.trim_start() == "```yaml" => current = Some((i + 2, String::new())),
            None => {}
            Some(_) if line.trim_start().starts_with("```") => {
                blocks.extend(current.take());
            }
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(current.is_none(), "unterminated ```yaml block");
    blocks
}

fn str_at<'a>(doc: &'a Yaml, path: &[&str]) -> Option<&'a str> {
    path.iter().fold(doc, |y, key| &y[*key]).as_str()
}

/// The documents of the page's manifests, checked to be manifests.
fn manifests() -> Vec<Yaml> {
    let page = repo_file("docs/operations.md");
    let blocks = yaml_blocks(&page);
    assert!(
        !blocks.is_empty(),
        "no ```yaml blocks in docs/operations.md"
    );
    let mut docs = Vec::new();
    for (line, body) in blocks {
        let parsed = YamlLoader::load_from_str(&body)
            .unwrap_or_else(|e| panic!("docs/operations.md:{line}: invalid YAML: {e}"));
        assert!(!parsed.is_empty(), "docs/operations.md:{line}: empty block");
        for doc in parsed {
            for field in [&["apiVersion"][..], &["kind"], &["metadata", "name"]] {
                assert!(
                    str_at(&doc, field).is_some_and(|s| !s.is_empty()),
                    "docs/operations.md:{line}: no {} in\n{body}",
                    field.join(".")
                );
            }
            docs.push(doc);
        }
    }
    docs
}

fn only<'a>(docs: &'a [Yaml], kind: &str) -> &'a Yaml {
    let found: Vec<&Yaml> = docs
        .iter()
        .filter(|d| str_at(d, &["kind"]) == Some(kind))
        .collect();
    assert_eq!(found.len(), 1, "expected one {kind}");
    found[0]
}

#[test]
fn manifests_parse_and_refer_to_each_other() {
    let docs = manifests();
    let kinds: BTreeSet<&str> = docs.iter().filter_map(|d| str_at(d, &["kind"])).collect();
    assert_eq!(
        kinds,
        BTreeSet::from([
            "ConfigMap",
            "DeploymentRuntimeConfig",
            "Function",
            "PodDisruptionBudget",
            "PrometheusRule",
        ])
    );
    let api = |kind: &str| str_at(only(&docs, kind), &["apiVersion"]).map(str::to_owned);
    assert_eq!(
        api("DeploymentRuntimeConfig").as_deref(),
        Some("pkg.crossplane.io/v1beta1")
    );
    assert_eq!(api("PodDisruptionBudget").as_deref(), Some("policy/v1"));

    let function = only(&docs, "Function");
    let function_name = str_at(function, &["metadata", "name"]).expect("name");
    let runtime = only(&docs, "DeploymentRuntimeConfig");
    assert_eq!(
        str_at(function, &["spec", "runtimeConfigRef", "name"]),
        str_at(runtime, &["metadata", "name"]),
        "the Function uses the runtime config"
    );
    assert_eq!(
        str_at(function, &["spec", "runtimeConfigRef", "kind"]),
        Some("DeploymentRuntimeConfig")
    );

    let deployment = &runtime["spec"]["deploymentTemplate"]["spec"];
    assert!(
        deployment["replicas"].as_i64().is_some_and(|n| n >= 2),
        "more than one replica"
    );
    let pod = &deployment["template"]["spec"];
    let container = &pod["containers"][0];
    assert_eq!(container["name"].as_str(), Some("package-runtime"));
    for (section, key) in [
        ("requests", "cpu"),
        ("requests", "memory"),
        ("limits", "memory"),
    ] {
        assert!(
            container["resources"][section][key].as_str().is_some(),
            "resources.{section}.{key}"
        );
    }
    // The mounted volume is the ConfigMap the page shows.
    let config_map = only(&docs, "ConfigMap");
    assert_eq!(
        pod["volumes"][0]["configMap"]["name"].as_str(),
        str_at(config_map, &["metadata", "name"])
    );
    assert!(config_map["data"]["main.hcl"].as_str().is_some());

    // The budget and the spread select the function's pods.
    let pdb = only(&docs, "PodDisruptionBudget");
    let label = "pkg.crossplane.io/function";
    assert_eq!(
        pdb["spec"]["selector"]["matchLabels"][label].as_str(),
        Some(function_name)
    );
    assert_eq!(
        pod["topologySpreadConstraints"][0]["labelSelector"]["matchLabels"][label].as_str(),
        Some(function_name)
    );
    assert!(pdb["spec"]["minAvailable"].as_i64().is_some());

    // The serve flags the container passes exist.
    let help = Command::new(BIN)
        .args(["serve", "--help"])
        .output()
        .expect("fn-hcl serve --help");
    let help = String::from_utf8_lossy(&help.stdout);
    let flags: BTreeSet<&str> = help
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| w.starts_with("--"))
        .collect();
    assert!(flags.contains("--program-cache-bytes"), "{flags:?}");
    let args = container["args"].as_vec().expect("container args");
    assert!(!args.is_empty());
    for arg in args {
        let arg = arg.as_str().expect("string arg");
        let flag = arg.split('=').next().unwrap_or(arg);
        assert!(flags.contains(flag), "fn-hcl serve has no {flag}");
    }
}

/// Every `function_hcl_*` name on the page (and in its alert rules) is a
/// series the server exports.
#[test]
fn metric_names_exist() {
    let page = repo_file("docs/operations.md");
    let sources = repo_file("crates/fnhcl-server/src/metrics.rs");
    let mut names = BTreeSet::new();
    let mut rest = page.as_str();
    while let Some(i) = rest.find("function_hcl_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        names.insert(&tail[..end]);
        rest = &tail[end..];
    }
    assert!(names.len() >= 8, "{names:?}");
    for name in names {
        // Counters are registered without `_total`; histogram series add
        // `_bucket`, `_count`, `_sum`.
        let base = ["_total", "_bucket", "_count", "_sum"]
            .iter()
            .find_map(|s| name.strip_suffix(s))
            .unwrap_or(name);
        assert!(
            sources.contains(&format!("\"{base}\"")),
            "docs/operations.md names {name}, which the server does not register"
        );
    }
}

/// Every `--flag` `docs/limits.md` names is a flag of the commands its
/// section is about: those its table header names (`` flag (`fn-hcl
/// analyze`, `fn-hcl render`) ``), else `fn-hcl serve`. A flag in a
/// table's flag column must be a flag of every one of them, one elsewhere
/// of one of them.
#[test]
fn limits_page_flags_exist() {
    let page = repo_file("docs/limits.md");
    let words = |text: &str| -> BTreeSet<String> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| {
                w.strip_prefix("--")
                    .is_some_and(|f| f.starts_with(|c: char| c.is_ascii_alphabetic()))
            })
            .map(str::to_owned)
            .collect()
    };
    let mut helps = std::collections::BTreeMap::new();
    let mut flags_of = |command: &str| -> BTreeSet<String> {
        helps
            .entry(command.to_owned())
            .or_insert_with(|| {
                let help = Command::new(BIN)
                    .args([command, "--help"])
                    .output()
                    .unwrap_or_else(|e| panic!("fn-hcl {command} --help: {e}"));
                assert!(help.status.success(), "fn-hcl {command} --help");
                words(&String::from_utf8_lossy(&help.stdout))
            })
            .clone()
    };
    let mut checked = 0;
    let mut commands_seen = BTreeSet::new();
    for section in page.split("\n## ") {
        // The commands of the section: those of its first table header
        // that names any, else `serve`.
        let header = section
            .lines()
            .find(|l| l.starts_with("| limit") && l.contains("flag"));
        let mut commands: Vec<String> = header
            .map(|h| {
                h.split("`fn-hcl ")
                    .skip(1)
                    .filter_map(|rest| rest.split('`').next())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if commands.is_empty() {
            commands.push("serve".to_owned());
        }
        let title = section.lines().next().unwrap_or("");
        // The flag column of the table a line is in.
        let mut flag_column = None;
        for line in section.lines() {
            if line.starts_with("| limit") {
                flag_column = line.split('|').position(|c| c.contains("flag"));
            }
            let cells: Vec<&str> = if line.starts_with('|') {
                line.split('|').collect()
            } else {
                vec![line]
            };
            for (i, cell) in cells.iter().enumerate() {
                let every = line.starts_with('|') && flag_column == Some(i);
                for flag in words(cell) {
                    let has: Vec<bool> = commands
                        .iter()
                        .map(|c| flags_of(c).contains(&flag))
                        .collect();
                    let ok = if every {
                        has.iter().all(|h| *h)
                    } else {
                        has.iter().any(|h| *h)
                    };
                    assert!(
                        ok,
                        "docs/limits.md, section {title:?}, names {flag}, which is not a flag of {} fn-hcl {}",
                        if every { "every one of" } else { "any of" },
                        commands.join(", fn-hcl ")
                    );
                    checked += 1;
                }
            }
        }
        commands_seen.extend(commands);
    }
    assert!(checked >= 8, "{checked} flags checked");
    for c in ["serve", "analyze", "render", "lsp"] {
        assert!(
            commands_seen.contains(c),
            "no section of docs/limits.md is about fn-hcl {c}: {commands_seen:?}"
        );
    }
}
