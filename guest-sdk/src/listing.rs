//! Providers that compute every skill with its body in one go (a file
//! holding many skills, a database, an API answer): they build a [`Listing`]
//! and implement [`ListingProvider`], which answers `snapshot`, `load` and
//! the resource calls from it.
//!
//! A skill that is not a `SKILL.md` file has its frontmatter as fields
//! ([`Listing::add_fields`]); they are written out as the YAML of a
//! `SKILL.md` and read back by the same parser the host applies, so every
//! field means what it means in a file, and the skill's one resource is
//! that document.

use crate::skill::digest;
use crate::skill::frontmatter::Finding;
use crate::{
    Diagnostic, Manifest, Observation, Provider, ProviderConfig, ProviderError, Resource, Severity,
    SkillDocument, SkillEntry, SnapshotRequest, default_manifest, full_observation, parse_skill,
    to_wit_diagnostic,
};
use std::io::ErrorKind;

/// Every skill a provider sees, each with its body, and what it found wrong.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The skills, in precedence order (the first of a name wins).
    pub documents: Vec<SkillDocument>,
    /// Problems with the sources, reported with the snapshot.
    pub diagnostics: Vec<Diagnostic>,
    /// False when a source could not be read: the host then keeps its last
    /// complete view.
    pub complete: bool,
}

impl Default for Listing {
    fn default() -> Self {
        Listing {
            documents: Vec::new(),
            diagnostics: Vec::new(),
            complete: true,
        }
    }
}

/// A skill as one record: its Markdown `body` and, beside it, its
/// frontmatter fields. It deserialises from any format (a TOML table, a JSON
/// object), for [`Listing::add`].
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
pub struct SkillFields {
    /// The Markdown instructions.
    #[serde(default)]
    pub body: String,
    /// Every other field: the frontmatter.
    #[serde(flatten)]
    pub frontmatter: serde_yaml::Mapping,
}

impl Listing {
    /// Adds the skill `name` defined in `file` as one record: see
    /// [`Listing::add_fields`].
    pub fn add(&mut self, file: &str, base: &str, name: &str, skill: SkillFields) {
        self.add_fields(file, base, name, &skill.frontmatter, skill.body);
    }

    /// Adds every skill of `file`, given as `(name, record)` pairs (the
    /// tables of a TOML file, the members of a JSON object), in order.
    pub fn add_all(
        &mut self,
        file: &str,
        base: &str,
        skills: impl IntoIterator<Item = (String, SkillFields)>,
    ) {
        for (name, skill) in skills {
            self.add(file, base, &name, skill);
        }
    }

    /// Adds the skill `name` defined in `file` (a guest path) by frontmatter
    /// `fields` (any map: a TOML table, a JSON object) and a Markdown `body`.
    /// `name` is the skill's name unless the fields declare one. Its entry's
    /// path is `file#name`, so the skills sharing one file stay distinct, and
    /// `base` is the folder its relative paths resolve against. Fields the
    /// `SKILL.md` rules refuse become an error on `file` (the skill is left
    /// out); what they only warn about the host reports against the entry.
    pub fn add_fields(
        &mut self,
        file: &str,
        base: &str,
        name: &str,
        fields: &impl serde::Serialize,
        body: String,
    ) {
        let about = |severity, finding: Finding| {
            let message = format!("skill {name:?}: {}", finding.message);
            // Lines would count in the generated document, not in `file`.
            to_wit_diagnostic(
                file,
                severity,
                Finding {
                    line: None,
                    message,
                    ..finding
                },
            )
        };
        let document = match document_text(name, fields, &body) {
            Ok(text) => text,
            Err(message) => {
                let finding = Finding {
                    line: None,
                    field: None,
                    message,
                };
                self.diagnostics.push(about(Severity::Error, finding));
                return;
            }
        };
        match parse_skill(document.as_bytes(), name) {
            Ok(parsed) => {
                let path = format!("{file}#{}", parsed.name);
                let entry = parsed.entry(path, base);
                self.documents.push(SkillDocument { entry, body });
            }
            Err(finding) => self.diagnostics.push(about(Severity::Error, finding)),
        }
    }

    /// Reads the source file `path` as text: `None` when it does not exist
    /// (it holds no skills) or cannot be read, which is an error on it; a
    /// failure other than "not text" also makes the listing incomplete, so
    /// the host keeps its last complete view until a read succeeds.
    pub fn read_text(&mut self, path: &str) -> Option<String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => {
                self.complete &= e.kind() == ErrorKind::InvalidData;
                self.error(path, format!("cannot be read: {e}"));
                None
            }
        }
    }

    /// Reports an error about `path` (a file that could not be parsed, say).
    pub fn error(&mut self, path: &str, message: impl Into<String>) {
        let finding = Finding {
            line: None,
            field: None,
            message: message.into(),
        };
        self.diagnostics
            .push(to_wit_diagnostic(path, Severity::Error, finding));
    }

    /// The whole listing as a (non-incremental) observation.
    pub fn observation(self) -> Observation {
        let skills = self.documents.into_iter().map(|d| d.entry).collect();
        full_observation(skills, self.diagnostics, self.complete)
    }

    /// The document of the skill called `name`.
    pub fn load(self, name: &str) -> Result<SkillDocument, ProviderError> {
        self.documents
            .into_iter()
            .find(|d| d.entry.name == name)
            .ok_or_else(|| ProviderError::NotFound(name.to_string()))
    }

    /// The files of skill `name`: its document, as `SKILL.md` text, at its
    /// path relative to its base.
    pub fn resources(self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let doc = self.load(name)?;
        let text = rendered(&doc);
        Ok(vec![Resource {
            path: relative_document(&doc.entry)?,
            size: text.len() as u64,
            digest: digest::sha256(text.as_bytes()),
        }])
    }

    /// Reads file `path` of skill `name` (only its document exists).
    pub fn read(self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let doc = self.load(name)?;
        if relative_document(&doc.entry)? != path {
            return Err(ProviderError::NotFound(format!("{name}: no file {path:?}")));
        }
        Ok(rendered(&doc).into_bytes())
    }
}

/// A provider that builds its whole [`Listing`] on each call. It gets
/// [`Provider`] for free: `snapshot`, `load`, `list-resources` and
/// `read-resource` answer from [`ListingProvider::listing`], and a change
/// or a write the host reports invalidates it (watch what you read with
/// [`crate::host::watch`]).
pub trait ListingProvider: Sized + 'static {
    /// What the provider wants granted (see [`Provider::manifest`]).
    fn manifest() -> Manifest {
        default_manifest()
    }

    /// Builds the provider from the host's configuration.
    fn init(config: ProviderConfig) -> Result<Self, ProviderError>;

    /// Every skill the provider sees now, with its body.
    fn listing(&mut self) -> Listing;
}

impl<T: ListingProvider> Provider for T {
    fn manifest() -> Manifest {
        <T as ListingProvider>::manifest()
    }
    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        <T as ListingProvider>::init(config)
    }
    fn snapshot(&mut self, _request: SnapshotRequest) -> Observation {
        self.listing().observation()
    }
    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        self.listing().load(name)
    }
    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        self.listing().resources(name)
    }
    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        self.listing().read(name, path)
    }
}

/// The `SKILL.md` text of `name` with these fields: `name` first unless the
/// fields declare it.
fn document_text(name: &str, fields: &impl serde::Serialize, body: &str) -> Result<String, String> {
    let fields = match serde_yaml::to_value(fields) {
        Ok(serde_yaml::Value::Mapping(map)) => map,
        Ok(_) => return Err("its fields are not a table".to_string()),
        Err(e) => return Err(format!("its fields cannot be written as YAML: {e}")),
    };
    let mut map = serde_yaml::Mapping::new();
    if !fields.contains_key("name") {
        map.insert("name".into(), name.into());
    }
    map.extend(fields);
    let yaml = serde_yaml::to_string(&map)
        .map_err(|e| format!("its fields cannot be written as YAML: {e}"))?;
    Ok(format!("---\n{yaml}---\n{body}"))
}

/// A listed document's `SKILL.md` text: its frontmatter verbatim, then its body.
fn rendered(doc: &SkillDocument) -> String {
    format!("---\n{}---\n{}", doc.entry.frontmatter.raw, doc.body)
}

/// The entry's document path relative to its base.
fn relative_document(entry: &SkillEntry) -> Result<String, ProviderError> {
    entry
        .path
        .strip_prefix(&entry.base)
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_string)
        .ok_or_else(|| {
            ProviderError::Invalid(format!(
                "{}: not inside its base {}",
                entry.path, entry.base
            ))
        })
}

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
