//! `skillhost mirror`: publishes skill roots as a static folder any web
//! server, object store or CDN can serve — an `index.json` holding a
//! SEP-2640 `skills/list` result (`uri`, verbatim `frontmatter`, the
//! complete `resources` list with `sha256:` digests), and every file of
//! every skill beside it, under `<name>/`.
//!
//! The skills are read through the sandboxed local provider, like every
//! other read. The output is deterministic, and a file is written only when
//! its bytes change, so re-running on unchanged roots changes nothing (and
//! a web server's ETags stay put). Files are written before the index that
//! names them, each atomically, so a reader never sees an index pointing at
//! a missing or half-written file. Files an earlier index listed and the
//! new one does not are removed; nothing else in the folder is touched.

use super::out::Out;
use serde_json::{Value, json};
use skillhost::Error;
use skillhost::model::{Diagnostic, Severity, Skill};
use skillhost::{Runtime, Sources};
use skillhost_skill::digest::sha256 as digest;
use skillhost_skill::layout::SKILL_FILE;
use skillhost_skill::segments;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The index file's name.
pub const INDEX: &str = "index.json";
/// Largest earlier index read, in bytes.
const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// What a run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MirrorReport {
    /// Skills published.
    pub skills: usize,
    /// Files written because they were new or changed (the index included).
    pub written: Vec<PathBuf>,
    /// Files already up to date.
    pub unchanged: usize,
    /// Files removed because no skill lists them any more.
    pub removed: Vec<PathBuf>,
    /// Skills left out, and catalog problems, with the reason.
    pub warnings: Vec<Diagnostic>,
}

/// One skill ready to publish.
struct Published {
    entry: Value,
    files: Vec<(String, Vec<u8>)>,
}

fn mirror_error(message: impl Into<String>) -> Error {
    Error::Mirror(message.into())
}

/// Publishes the skills of `roots` (highest precedence first) into `out`.
pub fn write(runtime: &Runtime, roots: &[PathBuf], out: &Path) -> Result<MirrorReport, Error> {
    let registry = runtime.registry_for_sources(&Sources::user_roots(roots))?;
    let catalog = registry.snapshot();
    let mut report = MirrorReport::default();
    if !catalog.complete {
        let problems: Vec<String> = catalog
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect();
        return Err(mirror_error(format!(
            "the roots could not be read completely, so nothing was written (a partial \
             mirror would make its readers drop skills): {}",
            problems.join("; ")
        )));
    }
    report.warnings.extend(catalog.diagnostics.iter().cloned());
    let mut published = Vec::new();
    for skill in &catalog.skills {
        match publish(&registry, skill) {
            Ok(Some(p)) => published.push(p),
            Ok(None) => report.warnings.push(
                Diagnostic::warning(
                    skill.path.to_string(),
                    format!(
                        "skill {:?} left out: SEP-2640 requires `name` and `description` in its frontmatter",
                        skill.name()
                    ),
                )
                .from_source(&skill.source),
            ),
            Err(e) => report.warnings.push(
                Diagnostic::error(
                    skill.path.to_string(),
                    format!("skill {:?} left out: {e}", skill.name()),
                )
                .from_source(&skill.source),
            ),
        }
    }
    let folder = Out::new(out)?;
    let previous = listed_files(&out.join(INDEX));
    let mut current = BTreeSet::new();
    for p in &published {
        for (relative, bytes) in &p.files {
            current.insert(relative.clone());
            match folder.put(relative, bytes)? {
                (path, true) => report.written.push(path),
                (_, false) => report.unchanged += 1,
            }
        }
    }
    report.skills = published.len();
    let index = json!({
        "skills": published.into_iter().map(|p| p.entry).collect::<Vec<_>>(),
    });
    let mut text = serde_json::to_string_pretty(&index)
        .map_err(|e| mirror_error(format!("cannot encode the index: {e}")))?;
    text.push('\n');
    match folder.put(INDEX, text.as_bytes())? {
        (path, true) => report.written.push(path),
        (_, false) => report.unchanged += 1,
    }
    for stale in previous.difference(&current) {
        if let Some(path) = folder.remove(stale)? {
            report.removed.push(path);
        }
    }
    Ok(report)
}

/// The index entry and files of one skill, or `None` when its frontmatter
/// lacks what SEP-2640 requires.
fn publish(registry: &skillhost::Registry, skill: &Skill) -> Result<Option<Published>, Error> {
    let frontmatter = skill.frontmatter_json();
    let has = |key: &str| frontmatter.get(key).is_some_and(Value::is_string);
    if !has("name") || !has("description") {
        return Ok(None);
    }
    let name = skill.name();
    // A skill's folder sits beside the index, so it may not be named
    // like the mirror's own files.
    if name == INDEX || name.starts_with(".skillhost-") {
        return Err(mirror_error(format!(
            "its name {name:?} is taken by the mirror's own files"
        )));
    }
    let document = skill.path.file_name().unwrap_or_default().to_string();
    let flat = !skillhost_skill::layout::is_document_name(&document);
    let listed = registry.list_resources(name)?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(listed.len());
    for resource in &listed {
        let bytes = registry.read_resource(name, &resource.path)?;
        if digest(&bytes) != resource.digest {
            return Err(mirror_error(format!(
                "{} changed while it was being published; run again",
                resource.path
            )));
        }
        // A flat skill becomes a folder with its file as SKILL.md, and a
        // folder's lowercase skill.md is published under the name every
        // reader looks for.
        let path = if flat || resource.path == document {
            SKILL_FILE.to_string()
        } else {
            resource.path.clone()
        };
        files.push((path, bytes));
    }
    if !files.iter().any(|(p, _)| p == SKILL_FILE) {
        return Err(mirror_error("its SKILL.md is not among its files"));
    }
    // SKILL.md first, then the rest by path: the order readers expect.
    files.sort_by(|(a, _), (b, _)| (a != SKILL_FILE, a).cmp(&(b != SKILL_FILE, b)));
    let resources: Vec<Value> = files
        .iter()
        .map(|(path, bytes)| {
            json!({
                "uri": format!("skill://{name}/{path}"),
                "digest": digest(bytes),
                "size": bytes.len(),
            })
        })
        .collect();
    Ok(Some(Published {
        entry: json!({
            "uri": format!("skill://{name}/SKILL.md"),
            "frontmatter": frontmatter,
            "resources": resources,
        }),
        files: files
            .into_iter()
            .map(|(path, bytes)| (format!("{name}/{path}"), bytes))
            .collect(),
    }))
}

/// The files an existing index lists (relative to the mirror), so only
/// those are ever removed.
fn listed_files(index: &Path) -> BTreeSet<String> {
    // Read only if it is a regular file: anything else is not our index.
    let Ok(bytes) = skillhost::paths::read_regular(index, MAX_INDEX_BYTES) else {
        return BTreeSet::new();
    };
    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
        return BTreeSet::new();
    };
    value["skills"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["resources"].as_array().into_iter().flatten())
        .filter_map(|r| r["uri"].as_str()?.strip_prefix("skill://"))
        .filter(|rel| segments::is_relative(rel))
        .map(str::to_string)
        .collect()
}
