//! The strict validator: every problem of every skill at the paths given,
//! by the rules of a [`Profile`].
//!
//! What is a skill, and what the lenient loader makes of it, comes from the
//! local provider inside the sandbox, exactly as for the catalog (so the
//! validator and the catalog agree on which files are skills and why one is
//! refused). The strict rules then read each document again and parse its
//! fields with the same parser, so they also see the fields of a document
//! the loader refused (an unsafe name does not hide an over-long
//! description). Each problem names the file and the field.
//!
//! - `discovery`: what a PATH holds.
//! - [`profile`]: the two rule sets and the fields each knows.
//! - [`name_rules`]: the portable naming rule and the Unicode one.
//! - `fields`: the rules for each field.

mod discovery;
mod fields;
pub mod name_rules;
pub mod profile;

pub use fields::{MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS};
pub use name_rules::{MAX_NAME_CHARS, name_problems, unicode_name_problems};
pub use profile::Profile;

use discovery::Target;
use skillhost::Error;
use skillhost::Runtime;
use skillhost::model::{Diagnostic, Severity};
use skillhost_skill::frontmatter::{MAX_DOCUMENT_BYTES, split_document};
use skillhost_skill::layout::{self, LOWERCASE_SKILL_FILE};
use skillhost_skill::yaml;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One problem: `path: field: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file concerned.
    pub path: PathBuf,
    /// The field (or `file` / `frontmatter` for the document as a whole).
    pub field: String,
    /// An error fails validation; a warning does not.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: ", self.path.display(), self.field)?;
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        f.write_str(&self.message)
    }
}

impl Problem {
    /// An error about `field` of `path`.
    pub fn error(path: &Path, field: &str, message: impl Into<String>) -> Self {
        Problem {
            path: path.to_path_buf(),
            field: field.to_string(),
            severity: Severity::Error,
            message: message.into(),
        }
    }

    /// A warning about `field` of `path`.
    pub fn warning(path: &Path, field: &str, message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Warning,
            ..Problem::error(path, field, message)
        }
    }

    /// Whether it fails validation.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The JSON of one problem in `skillhost validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "path": self.path,
            "field": self.field,
            "severity": self.severity.as_str(),
            "message": self.message,
        })
    }
}

/// What `validate` looked at and found.
#[derive(Debug, Default)]
pub struct Report {
    /// The rules applied.
    pub profile: Profile,
    /// The skill documents checked.
    pub checked: Vec<PathBuf>,
    /// Every problem found, errors and warnings, in the order found.
    pub problems: Vec<Problem>,
}

impl Report {
    /// How many problems are errors.
    pub fn errors(&self) -> usize {
        self.problems.iter().filter(|p| p.is_error()).count()
    }

    /// How many problems are warnings.
    pub fn warnings(&self) -> usize {
        self.problems.len() - self.errors()
    }

    /// Whether there is no error (warnings allowed).
    pub fn is_valid(&self) -> bool {
        self.errors() == 0
    }

    /// The JSON of `skillhost validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "profile": self.profile.as_str(),
            "valid": self.is_valid(),
            "checked": self.checked,
            "errors": self.errors(),
            "warnings": self.warnings(),
            "problems": self.problems.iter().map(Problem::to_json).collect::<Vec<_>>(),
        })
    }
}

/// Validates the skills at `paths` by `profile`'s rules: each path is a
/// skill folder, its `SKILL.md`, a flat `.md` skill, or a folder of skills.
/// A path that yields no skill is an error.
pub fn validate_paths(
    runtime: &Runtime,
    paths: &[PathBuf],
    profile: Profile,
) -> Result<Report, Error> {
    let mut report = Report {
        profile,
        ..Report::default()
    };
    for path in paths {
        match discovery::discover(path, profile) {
            Target::Refused(problem) => report.problems.push(problem),
            Target::Skill {
                root,
                document,
                notes,
            } => {
                report.problems.extend(notes);
                if !scan(runtime, &root, Some(&document), profile, &mut report)? {
                    report.problems.push(Problem::error(
                        &document,
                        "file",
                        "is not a skill (a flat file must start with '---' frontmatter)",
                    ));
                }
            }
            Target::Root(dir) => {
                if !scan(runtime, &dir, None, profile, &mut report)? {
                    let message = format!(
                        "{}, and no skill folders or flat skills either",
                        discovery::no_skill_md(&dir)
                    );
                    report.problems.push(Problem::error(&dir, "file", message));
                }
            }
        }
    }
    Ok(report)
}

/// The entry of a root a document belongs to: a bundle's folder, or the
/// flat file itself.
fn entry_of(document: &Path) -> &Path {
    match document.file_name().and_then(|n| n.to_str()) {
        Some(name) if layout::is_document_name(name) => document.parent().unwrap_or(document),
        _ => document,
    }
}

/// Checks the skills a local provider over `root` finds (only the one at
/// `only`, when given). Returns whether it found anything there: a skill,
/// or a problem.
fn scan(
    runtime: &Runtime,
    root: &Path,
    only: Option<&Path>,
    profile: Profile,
    report: &mut Report,
) -> Result<bool, Error> {
    let provider = runtime.local_provider(root)?;
    let (view, _) = provider.view();
    let in_scope = |p: &Path| only.is_none_or(|o| p == o || p == entry_of(o));
    let diagnostics: Vec<&Diagnostic> = view
        .diagnostics
        .iter()
        .filter(|d| in_scope(Path::new(&d.path)))
        .collect();
    // Every document the loader took, and every one it refused (an error
    // on a Markdown file), with whether it loaded.
    let mut documents: BTreeMap<PathBuf, bool> = BTreeMap::new();
    for skill in &view.skills {
        if let Some(path) = skill.path.as_path().filter(|p| in_scope(p)) {
            documents.insert(path.to_path_buf(), true);
        }
    }
    for d in &diagnostics {
        let path = Path::new(&d.path);
        let markdown = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| layout::markdown_stem(n).is_some());
        if d.severity == Severity::Error && markdown {
            documents.entry(path.to_path_buf()).or_insert(false);
        }
    }
    for (document, &loaded) in &documents {
        report.checked.push(document.clone());
        let own = check_document(document, loaded, profile);
        for d in diagnostics
            .iter()
            .filter(|d| Path::new(&d.path) == document)
        {
            let field = d.field.as_deref().unwrap_or("file");
            // The profile's own rules for this field say it better (and
            // say it for a refused document too).
            let repeated =
                profile.checks(field) && (loaded || own.iter().any(|p| p.field == field));
            if !repeated {
                report.problems.push(loader_problem(d, field));
            }
        }
        report.problems.extend(own);
    }
    for d in diagnostics
        .iter()
        .filter(|d| !documents.contains_key(Path::new(&d.path)))
    {
        report
            .problems
            .push(loader_problem(d, d.field.as_deref().unwrap_or("file")));
    }
    Ok(!documents.is_empty() || !diagnostics.is_empty())
}

/// What the loader said, as a problem: anything it had to refuse or fall
/// back on fails strict validation.
fn loader_problem(d: &Diagnostic, field: &str) -> Problem {
    let message = match d.line {
        Some(line) => format!("line {line}: {}", d.message),
        None => d.message.clone(),
    };
    Problem::error(Path::new(&d.path), field, message)
}

/// The name a document's skill must have: its folder's, or a flat file's stem.
fn expected_name(document: &Path) -> String {
    let file = document
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let name = if layout::is_document_name(file) {
        document
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
    } else {
        layout::markdown_stem(file).map(str::to_string)
    };
    name.unwrap_or_default()
}

/// The document's bytes, at most one more than the loader accepts; only
/// regular files are opened (a FIFO would block).
fn read_document(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    // Checked on the opened file, so a swap to a FIFO after a check by path
    // cannot block either.
    skillhost::paths::open_regular(path, std::fs::OpenOptions::new().read(true))?
        .take(MAX_DOCUMENT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The profile's rules for one document. When the document cannot be read
/// or split, the loader has said why (unless it loaded it a moment ago).
fn check_document(document: &Path, loaded: bool, profile: Profile) -> Vec<Problem> {
    let mut out = Vec::new();
    let bytes = match read_document(document) {
        Ok(bytes) => bytes,
        Err(e) => {
            if loaded {
                out.push(Problem::error(
                    document,
                    "file",
                    format!("cannot be read: {e}"),
                ));
            }
            return out;
        }
    };
    let split = match split_document(&bytes) {
        Ok(split) => split,
        Err(finding) => {
            if loaded {
                out.push(Problem::error(document, "file", finding.to_string()));
            }
            return out;
        }
    };
    let file = document
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    match profile {
        Profile::Claude if file == LOWERCASE_SKILL_FILE => out.push(Problem::warning(
            document,
            "file",
            "is named skill.md: Claude Code and the spec's client guide look for SKILL.md only; rename it",
        )),
        Profile::AgentSkills if !layout::is_document_name(file) => {
            out.push(Problem::error(
                document,
                "file",
                format!(
                    "is a flat skill: the Agent Skills format has only folders holding a SKILL.md; \
                     move it to {}/SKILL.md",
                    expected_name(document)
                ),
            ));
        }
        _ => {}
    }
    let Some(raw) = split.raw else {
        out.push(Problem::error(
            document,
            "frontmatter",
            "missing: the document must open with a '---' line, its fields, and another '---' line",
        ));
        return out;
    };
    let fields = match yaml::parse_fields(raw) {
        Ok(fields) => fields,
        Err(finding) => {
            if loaded {
                out.push(Problem::error(document, "frontmatter", finding.to_string()));
            }
            return out;
        }
    };
    if let Err(e) = yaml::strict(raw) {
        out.push(Problem::error(
            document,
            "frontmatter",
            format!(
                "is not strict YAML (values with ': ' or starting with '*' or '{{' must be quoted): {e}"
            ),
        ));
    }
    out.extend(fields::check_fields(
        &fields,
        document,
        &expected_name(document),
        profile,
    ));
    out
}
