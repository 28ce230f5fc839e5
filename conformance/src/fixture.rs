//! The kit's own skills tree, laid out in a temporary folder for a
//! filesystem provider: known skills in every layout the contract's
//! first-party reader takes, files that must be refused with a diagnostic,
//! entries that are not skills at all, and a bundle holding a nested
//! bundle (whose `SKILL.md` is a resource of the outer skill, never a skill
//! of its own). It also knows the changes the delta checks make, and what
//! the snapshot must be after each.

use crate::error::Error;
use skillhost::provider::ChangeKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A skill the provider must list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    /// Its description.
    pub description: String,
    /// Its document, relative to the root.
    pub document: String,
}

/// A change the kit makes to the tree, and what it must do to the catalog.
pub(crate) struct Step {
    /// What it is, for messages.
    pub what: &'static str,
    /// Whether the catalog changes (the provider must invalidate).
    pub catalog_change: bool,
    /// The changes a watcher would report, as (path under the root, kind).
    pub events: Vec<(&'static str, ChangeKind)>,
}

/// The fixture tree.
pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    expected: BTreeMap<String, Expected>,
}

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}")
}

/// The files of the tree: (path under the root, contents).
fn files() -> Vec<(&'static str, String)> {
    vec![
        (
            "alpha/SKILL.md",
            skill_md(
                "alpha",
                "The first fixture skill",
                "# Alpha\n\nUse alpha.\n",
            ),
        ),
        (
            "alpha/references/notes.md",
            "Notes for alpha.\n".to_string(),
        ),
        (
            "alpha/scripts/run.sh",
            "#!/bin/sh\necho alpha\n".to_string(),
        ),
        (
            "beta/SKILL.md",
            skill_md("beta", "The second fixture skill", "# Beta\n"),
        ),
        (
            "gamma.md",
            skill_md("gamma", "A flat fixture skill", "# Gamma\n"),
        ),
        (
            "bundle/SKILL.md",
            skill_md("bundle", "A bundle holding a nested bundle", "# Bundle\n"),
        ),
        (
            "bundle/nested/SKILL.md",
            skill_md(
                "nested",
                "Never a skill: it lies inside a bundle",
                "# Nested\n",
            ),
        ),
        // Refused with a diagnostic: frontmatter that is not YAML, and a
        // name no client can invoke.
        (
            "broken/SKILL.md",
            "---\nname: [unclosed\n---\nBody\n".to_string(),
        ),
        (
            "badname/SKILL.md",
            skill_md("bad/name", "A name that is not a safe name", "Body\n"),
        ),
        // Not skills at all: a README without frontmatter, a text file, a
        // hidden folder.
        ("README.md", "# The fixture's skills\n".to_string()),
        ("notes.txt", "not a skill\n".to_string()),
        (
            ".hidden/SKILL.md",
            skill_md("hidden", "Hidden folders are never read", "Body\n"),
        ),
    ]
}

/// Documents that must come with an error diagnostic and no entry.
pub(crate) const REFUSED: [&str; 2] = ["broken/SKILL.md", "badname/SKILL.md"];

/// Names that must never be listed.
pub(crate) const NEVER: [&str; 6] = ["nested", "hidden", "README", "notes", "badname", "broken"];

/// The document the kit tells a filesystem provider the agent wrote.
pub(crate) const OBSERVED: &str = "alpha/SKILL.md";

/// The resource a bundle's nested `SKILL.md` is, relative to its base.
pub(crate) const NESTED_RESOURCE: (&str, &str) = ("bundle", "nested/SKILL.md");

impl Fixture {
    /// Lays the tree out in a new temporary folder.
    pub fn lay_out() -> Result<Fixture, Error> {
        let dir = tempfile::tempdir().map_err(|error| Error::Fixture {
            path: std::env::temp_dir(),
            error,
        })?;
        let root = dir.path().join("skills");
        let mut fixture = Fixture {
            _dir: dir,
            root,
            expected: BTreeMap::new(),
        };
        for (path, text) in files() {
            fixture.write(path, &text)?;
        }
        std::fs::create_dir_all(fixture.root.join("empty-folder")).map_err(|error| {
            Error::Fixture {
                path: fixture.root.join("empty-folder"),
                error,
            }
        })?;
        // The host grants canonical paths; events must name the same ones.
        fixture.root = std::fs::canonicalize(&fixture.root).map_err(|error| Error::Fixture {
            path: fixture.root.clone(),
            error,
        })?;
        for (name, description, document) in [
            ("alpha", "The first fixture skill", "alpha/SKILL.md"),
            ("beta", "The second fixture skill", "beta/SKILL.md"),
            ("gamma", "A flat fixture skill", "gamma.md"),
            (
                "bundle",
                "A bundle holding a nested bundle",
                "bundle/SKILL.md",
            ),
        ] {
            fixture.expect(name, description, document);
        }
        Ok(fixture)
    }

    fn expect(&mut self, name: &str, description: &str, document: &str) {
        self.expected.insert(
            name.to_string(),
            Expected {
                description: description.to_string(),
                document: document.to_string(),
            },
        );
    }

    fn write(&self, path: &str, text: &str) -> Result<(), Error> {
        let full = self.root.join(path);
        let fail = |error| Error::Fixture {
            path: full.clone(),
            error,
        };
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::write(&full, text).map_err(fail)
    }

    /// The root granted to the provider.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What the provider must list now, by name.
    pub fn expected(&self) -> &BTreeMap<String, Expected> {
        &self.expected
    }

    /// The changes the delta and `on-change` checks make, in order.
    pub fn steps() -> Vec<Step> {
        vec![
            Step {
                what: "a skill folder added",
                catalog_change: true,
                events: vec![
                    ("added", ChangeKind::Created),
                    ("added/SKILL.md", ChangeKind::Created),
                ],
            },
            Step {
                what: "a description changed",
                catalog_change: true,
                events: vec![("beta/SKILL.md", ChangeKind::Modified)],
            },
            Step {
                what: "a flat skill removed",
                catalog_change: true,
                events: vec![("gamma.md", ChangeKind::Removed)],
            },
            Step {
                what: "a body edited (frontmatter unchanged)",
                catalog_change: false,
                events: vec![("alpha/SKILL.md", ChangeKind::Modified)],
            },
        ]
    }

    /// Makes step `index` of [`Fixture::steps`] on disk and in what is
    /// expected.
    pub fn apply(&mut self, index: usize) -> Result<(), Error> {
        match index {
            0 => {
                self.write(
                    "added/SKILL.md",
                    &skill_md("added", "A skill added by the kit", "# Added\n"),
                )?;
                self.expect("added", "A skill added by the kit", "added/SKILL.md");
            }
            1 => {
                let description = "The second fixture skill, described again";
                self.write("beta/SKILL.md", &skill_md("beta", description, "# Beta\n"))?;
                self.expect("beta", description, "beta/SKILL.md");
            }
            2 => {
                let path = self.root.join("gamma.md");
                std::fs::remove_file(&path).map_err(|error| Error::Fixture { path, error })?;
                self.expected.remove("gamma");
            }
            _ => {
                let body =
                    "# Alpha\n\nUse alpha. This body was edited by the kit and is longer now.\n";
                self.write(
                    "alpha/SKILL.md",
                    &skill_md("alpha", "The first fixture skill", body),
                )?;
            }
        }
        Ok(())
    }

    /// The host path of `path` under the root.
    pub fn path(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }
}
