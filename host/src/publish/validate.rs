//! The strict Agent Skills validator.
//!
//! Files are read by the local provider inside the sandbox, exactly as for
//! the catalog; this module applies the strict rules to what comes back:
//! `name` 1–64 of `a-z0-9-` without leading, trailing or doubled hyphens and
//! equal to its folder; `description` 1–1024 characters; `compatibility` at
//! most 500; both required fields present; every problem the lenient loader
//! reported. Each problem names the file and the field.

use crate::Runtime;
use crate::error::Error;
use crate::model::Skill;
use skillhost_skill::layout::SKILL_FILE;
use skillhost_skill::node::Node;
use skillhost_skill::yaml;
use std::path::{Path, PathBuf};

/// Longest description the spec allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest compatibility note the spec allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Longest name the spec allows, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// One violation: `path: field: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file concerned.
    pub path: PathBuf,
    /// The field (or `file` / `frontmatter` for the document as a whole).
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.path.display(),
            self.field,
            self.message
        )
    }
}

impl Problem {
    fn new(path: &Path, field: &str, message: impl Into<String>) -> Self {
        Problem {
            path: path.to_path_buf(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    /// The JSON of `skillhost validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"path": self.path, "field": self.field, "message": self.message})
    }
}

/// What `validate` looked at.
#[derive(Debug, Default)]
pub struct Report {
    /// The skill documents checked.
    pub checked: Vec<PathBuf>,
    /// Every violation found.
    pub problems: Vec<Problem>,
}

/// Validates skills at `paths`: a skill folder, a `SKILL.md` or flat `.md`
/// file, or a folder of skills.
pub fn validate_paths(runtime: &Runtime, paths: &[PathBuf]) -> Result<Report, Error> {
    let mut report = Report::default();
    for path in paths {
        validate_one(runtime, path, &mut report)?;
    }
    Ok(report)
}

fn validate_one(runtime: &Runtime, path: &Path, report: &mut Report) -> Result<(), Error> {
    let Ok(target) = std::fs::canonicalize(path) else {
        report
            .problems
            .push(Problem::new(path, "file", "does not exist"));
        return Ok(());
    };
    // The root to scan, and the one document inside it that was asked for.
    let (root, only) = if target.is_file() {
        let parent = target.parent().unwrap_or(Path::new("/"));
        if target.file_name().is_some_and(|n| n == SKILL_FILE) {
            (
                parent.parent().unwrap_or(Path::new("/")).to_path_buf(),
                Some(target.clone()),
            )
        } else {
            (parent.to_path_buf(), Some(target.clone()))
        }
    } else if target.join(SKILL_FILE).is_file() {
        let parent = target.parent().unwrap_or(Path::new("/"));
        (parent.to_path_buf(), Some(target.join(SKILL_FILE)))
    } else {
        (target.clone(), None)
    };
    let provider = runtime.local_provider(&root)?;
    let (view, _) = provider.view();
    let wanted = |p: &Path| only.as_ref().is_none_or(|o| o == p);
    let local = |s: &Skill| s.path.as_path().map(Path::to_path_buf);
    for d in &view.diagnostics {
        if !wanted(Path::new(&d.path)) {
            continue;
        }
        let message = match d.line {
            Some(line) => format!("line {line}: {}", d.message),
            None => d.message.clone(),
        };
        let field = d.field.as_deref().unwrap_or("file");
        // Missing descriptions are re-checked below with the strict wording.
        if field == "description" && view.skills.iter().any(|s| s.path.to_string() == d.path) {
            continue;
        }
        report
            .problems
            .push(Problem::new(Path::new(&d.path), field, message));
    }
    let mut found = false;
    for skill in &view.skills {
        let Some(path) = local(skill).filter(|p| wanted(p)) else {
            continue;
        };
        found = true;
        report.checked.push(path);
        report.problems.extend(check_skill(skill));
    }
    let reported = report
        .problems
        .iter()
        .any(|p| only.as_ref().is_some_and(|o| &p.path == o));
    if let Some(only) = &only
        && !found
        && !reported
    {
        report.problems.push(Problem::new(
            only,
            "file",
            "is not a skill (a flat file must start with '---' frontmatter)",
        ));
    }
    Ok(())
}

/// The strict rules for one skill that loaded, read from the same parse of
/// its frontmatter as everything else (the one parser in `skillhost-skill`).
pub fn check_skill(skill: &Skill) -> Vec<Problem> {
    let path = PathBuf::from(skill.path.to_string());
    let path = path.as_path();
    let mut problems = Vec::new();
    let raw = &skill.frontmatter.raw;
    if let Err(e) = yaml::strict(raw) {
        problems.push(Problem::new(
            path,
            "frontmatter",
            format!("is not strict YAML (values with ': ' or starting with '*' or '{{' must be quoted): {e}"),
        ));
    }
    let fields = match yaml::parse_fields(raw) {
        Ok(fields) => fields,
        Err(e) => {
            problems.push(Problem::new(path, "frontmatter", e.to_string()));
            return problems;
        }
    };
    let get = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    match get("name") {
        None => problems.push(Problem::new(path, "name", "missing (required)")),
        Some(Node::Text(name)) => {
            for message in name_problems(name, &folder_name(skill)) {
                problems.push(Problem::new(path, "name", message));
            }
        }
        Some(_) => problems.push(Problem::new(path, "name", "must be a string")),
    }
    match get("description") {
        None => problems.push(Problem::new(path, "description", "missing (required)")),
        Some(Node::Text(d)) => {
            let chars = d.trim().chars().count();
            if chars == 0 {
                problems.push(Problem::new(path, "description", "must not be empty"));
            } else if chars > MAX_DESCRIPTION_CHARS {
                problems.push(Problem::new(
                    path,
                    "description",
                    format!("has {chars} characters, more than {MAX_DESCRIPTION_CHARS}"),
                ));
            }
        }
        Some(_) => problems.push(Problem::new(path, "description", "must be a string")),
    }
    match get("compatibility") {
        None => {}
        Some(Node::Text(c)) => {
            let chars = c.chars().count();
            if chars == 0 || chars > MAX_COMPATIBILITY_CHARS {
                problems.push(Problem::new(
                    path,
                    "compatibility",
                    format!("has {chars} characters; it must have 1 to {MAX_COMPATIBILITY_CHARS}"),
                ));
            }
        }
        Some(_) => problems.push(Problem::new(path, "compatibility", "must be a string")),
    }
    match get("license") {
        None | Some(Node::Text(_)) => {}
        Some(_) => problems.push(Problem::new(path, "license", "must be a string")),
    }
    match get("metadata") {
        None => {}
        Some(Node::Map(pairs)) if pairs.iter().any(|(k, _)| !matches!(k, Node::Text(_))) => {
            problems.push(Problem::new(path, "metadata", "keys must be strings"));
        }
        Some(Node::Map(_)) => {}
        Some(_) => problems.push(Problem::new(path, "metadata", "must be a mapping")),
    }
    problems
}

/// The folder (bundle) or file stem (flat skill) the name must equal.
fn folder_name(skill: &Skill) -> String {
    let file = skill.path.file_name().unwrap_or_default();
    let name = if file == SKILL_FILE {
        skill.base.file_name()
    } else {
        skillhost_skill::layout::markdown_stem(file)
    };
    name.unwrap_or_default().to_string()
}

/// Every way `name` breaks the spec's naming rule.
pub fn name_problems(name: &str, folder: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        out.push(format!(
            "has {chars} characters; it must have 1 to {MAX_NAME_CHARS}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-'))
    {
        out.push(format!(
            "contains {c:?}; only lowercase letters a-z, digits and '-' are allowed"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not start or end with '-'".to_string());
    }
    if name.contains("--") {
        out.push("must not contain '--'".to_string());
    }
    if name != folder {
        out.push(format!(
            "{name:?} does not match its folder name {folder:?}"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_conforming_name() {
        assert!(name_problems("pdf-tools", "pdf-tools").is_empty());
    }

    #[test]
    fn reports_each_naming_rule() {
        assert_eq!(name_problems("PDF", "PDF").len(), 1);
        assert_eq!(name_problems("-a", "-a").len(), 1);
        assert_eq!(name_problems("a--b", "a--b").len(), 1);
        assert_eq!(name_problems("a", "b").len(), 1);
        assert_eq!(name_problems(&"a".repeat(65), &"a".repeat(65)).len(), 1);
        assert_eq!(
            name_problems("", ""),
            ["has 0 characters; it must have 1 to 64"]
        );
    }
}
