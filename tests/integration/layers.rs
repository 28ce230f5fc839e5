//! The layers hold in the dependency graph cargo resolves, not only in the
//! code: an agent host that embeds `skillhost` builds no SQLite and no
//! Unicode tables (those belong to the usage and publish layers above it),
//! and no crate depends on one above it.

use skillhost_tests::workspace;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::OnceLock;

/// The triple of this machine, as rustc names it.
pub(crate) fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// `cargo ARGS` on this workspace's manifest: its standard output, or a
/// failure naming the command and what cargo said.
pub(crate) fn cargo_on_workspace(args: &[&str]) -> Vec<u8> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .arg("--manifest-path")
        .arg(workspace().join("Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The workspace's resolved graph for this machine, computed once: each
/// package name with the names of its normal (not dev, not build)
/// dependencies.
fn normal_graph() -> &'static BTreeMap<String, BTreeSet<String>> {
    static GRAPH: OnceLock<BTreeMap<String, BTreeSet<String>>> = OnceLock::new();
    GRAPH.get_or_init(resolve)
}

fn resolve() -> BTreeMap<String, BTreeSet<String>> {
    // Offline and for this platform only: every package that resolves is
    // one the build has already fetched.
    let triple = host_triple();
    let stdout = cargo_on_workspace(&[
        "metadata",
        "--format-version",
        "1",
        "--offline",
        "--filter-platform",
        &triple,
    ]);
    let meta: serde_json::Value = serde_json::from_slice(&stdout).unwrap();
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let name = name_of[node["id"].as_str().unwrap()].to_string();
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .is_some_and(|kinds| kinds.iter().any(|k| k["kind"].is_null()))
            })
            .map(|d| name_of[d["pkg"].as_str().unwrap()].to_string());
        graph.entry(name).or_default().extend(deps);
    }
    graph
}

/// Everything `root` pulls in at run time.
fn closure(graph: &BTreeMap<String, BTreeSet<String>>, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(next) = todo.pop() {
        for dep in graph.get(&next).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    seen
}

#[test]
fn the_embedding_crate_builds_no_sqlite_and_no_unicode_tables() {
    let graph = normal_graph();
    let host = closure(graph, "skillhost");
    for crate_name in [
        "rusqlite",
        "libsqlite3-sys",
        "unicode-normalization",
        "unicode-general-category",
        "skillhost-usage",
        "skillhost-publish",
        "skillhost-mcp",
        "rmcp",
        "skillhost-oci",
        "oci-client",
    ] {
        assert!(
            !host.contains(crate_name),
            "skillhost pulls in {crate_name}; it belongs to a layer above"
        );
    }
    assert!(closure(graph, "skillhost-usage").contains("rusqlite"));
}

#[test]
fn no_crate_depends_on_a_layer_above_it() {
    let graph = normal_graph();
    // Lowest first; a crate may depend only on those before it.
    let layers = [
        "skillhost-skill",
        // Registry access: it needs nothing of skills or the sandbox.
        "skillhost-oci",
        "skillhost",
        "skillhost-usage",
        "skillhost-publish",
        "skillhost-conformance",
        "skillhost-mcp",
        "skillhost-cli",
    ];
    for (i, name) in layers.iter().enumerate() {
        let reached = closure(graph, name);
        for above in &layers[i + 1..] {
            assert!(
                !reached.contains(*above),
                "{name} depends on {above}, a layer above it"
            );
        }
    }
}

/// Every `.rs` file of the workspace's own crates (build output, installed
/// tools and hidden folders left out).
fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => sources(&path, out),
            Ok(t) if t.is_file() && name.ends_with(".rs") => out.push(path),
            _ => {}
        }
    }
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = Vec::new();
    sources(&workspace(), &mut files);
    assert!(files.len() > 100, "the walk finds the sources");
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > 600).then(|| format!("{} ({lines} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}
