//! The Agent Skills reference validator's own test cases, ported.
//!
//! Every case of `skills-ref/tests/test_validator.py` (and the cases of
//! `tests/test_parser.py` that `validate()` decides), from the
//! `agentskills/agentskills` repository at 69ef37e9, unchanged there since
//! 547831f. Each writes the reference's input into a real temporary skill
//! folder and validates it with `--profile agentskills`; the verdict and
//! the field must be the reference's (the wording may differ). The last
//! tests pin where the `claude` profile and skillhost deliberately differ,
//! as docs/CLI.md lists.

mod beyond;
mod parser;
mod validator;

use skillhost::Runtime;
use skillhost_publish::validate::{Profile, Report, validate_paths};
use skillhost_tests::{runtime, write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The one runtime every test here validates with.
pub fn shared_runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(runtime)
}

/// The reference's `"""---\n{x}\n---\nBody\n"""` documents.
pub fn fm(x: &str) -> String {
    format!("---\n{x}\n---\nBody\n")
}

/// A temporary folder holding `<folder>/<file>` for each file.
pub struct Skill {
    dir: tempfile::TempDir,
    folder: String,
}

impl Skill {
    /// A skill folder named `folder` holding `files`.
    pub fn new(folder: &str, files: &[(&str, &str)]) -> Skill {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        for (file, text) in files {
            write(dir.path(), &format!("{folder}/{file}"), text.as_bytes());
        }
        Skill {
            dir,
            folder: folder.to_string(),
        }
    }

    /// The skill's folder.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.folder)
    }

    /// The skill validated under `profile`.
    pub fn validate(&self, profile: Profile) -> Report {
        validate(&self.path(), profile)
    }
}

/// `path` validated under `profile`.
pub fn validate(path: &Path, profile: Profile) -> Report {
    validate_paths(shared_runtime(), &[path.to_path_buf()], profile).unwrap()
}

/// A SKILL.md in `folder`, validated by the Agent Skills profile.
pub fn agentskills(folder: &str, text: &str) -> Report {
    Skill::new(folder, &[("SKILL.md", text)]).validate(Profile::AgentSkills)
}

/// The errors of `report`, as text.
pub fn errors(report: &Report) -> Vec<String> {
    report
        .problems
        .iter()
        .filter(|p| p.is_error())
        .map(|p| format!("{p}"))
        .collect()
}

/// Fails unless `report` has no errors.
pub fn assert_valid(report: &Report) {
    assert!(report.is_valid(), "{:#?}", report.problems);
    assert!(!report.checked.is_empty(), "a skill was checked");
}

/// Invalid, and every error is about `field`.
pub fn assert_invalid_on(report: &Report, field: &str) {
    assert!(!report.is_valid(), "expected an error on {field}");
    for p in report.problems.iter().filter(|p| p.is_error()) {
        assert_eq!(p.field, field, "{:#?}", errors(report));
    }
}

/// Fails unless some problem of `report` mentions `part`.
pub fn assert_message(report: &Report, part: &str) {
    assert!(
        report.problems.iter().any(|p| p.message.contains(part)),
        "no problem says {part:?}: {:#?}",
        errors(report)
    );
}
