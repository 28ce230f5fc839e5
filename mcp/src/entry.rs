//! One skill as the Skills Extension serves it: its `SKILL.md` URI, its
//! frontmatter verbatim, and the complete list of its files with digests
//! and sizes — asked of its provider, never of the disk directly.
//!
//! A skill that cannot be served conformingly is left out with the reason:
//! a name outside the Agent Skills rules, frontmatter without `name` and
//! `description`, more than 512 files or 16 MiB, or a listing its provider
//! cannot give. One such skill never breaks the listing of the others.

use crate::content::{MARKDOWN, mime_type};
use crate::uri::{SKILL_MD, file_uri, skill_root};
use rmcp::model::{
    Skill as WireSkill, SkillFrontmatter, SkillResource as WireResource, SkillResources,
};
use serde_json::Value;
use skillhost::{Location, Registry, Skill};
use skillhost_skill::limits::{MAX_BYTES, MAX_FILES};
use std::path::PathBuf;
use std::sync::Arc;

/// One file of a served skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// Its URI.
    pub uri: String,
    /// Its path under the skill root as served (`SKILL.md` for the document).
    pub rel: String,
    /// Its path as the provider knows it.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// `sha256:<hex>` of its bytes.
    pub digest: String,
    /// Its MIME type, when known.
    pub mime: Option<&'static str>,
}

/// A served skill.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The catalog's skill it was made from.
    pub skill: Arc<Skill>,
    /// The skill's catalog name (`label:name` for a remote one).
    pub name: String,
    /// `skill://…` without `/SKILL.md`.
    pub root: String,
    /// The `SKILL.md` URI.
    pub uri: String,
    /// Every file, `SKILL.md` first, then by path.
    pub files: Vec<FileEntry>,
    /// What `skills/list` and `skills/get` send.
    pub wire: WireSkill,
    /// Roughly how many bytes `wire` takes as JSON.
    pub wire_bytes: usize,
    /// The host path whose changes may change it, for a local skill.
    pub watch: Option<PathBuf>,
    /// Its provider's generation when it was made.
    pub generation: u64,
}

/// A skill of the catalog that is not served, and why.
#[derive(Debug, Clone)]
pub struct LeftOut {
    /// The catalog's skill.
    pub skill: Arc<Skill>,
    /// Why it is not served.
    pub reason: String,
    /// The host path whose changes may change that, for a local skill.
    pub watch: Option<PathBuf>,
    /// Its provider's generation when it was judged.
    pub generation: u64,
    /// Whether it must be judged again whatever changes (it collided with
    /// another skill, which may go away).
    pub again: bool,
}

/// The host path whose changes may change what a skill serves: its
/// document for a flat skill, else its folder.
fn watch_path(skill: &Skill) -> Option<PathBuf> {
    let flat = skill.path.file_name() != Some(SKILL_MD);
    if flat {
        skill.path.as_path()
    } else {
        skill.base.as_path()
    }
    .map(PathBuf::from)
}

/// The Agent Skills naming rule, in ASCII: 1 to 64 of `a-z`, `0-9` and
/// single inner hyphens.
pub fn is_agent_skills_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
        && !name.contains("--")
}

/// `path` relative to `base`, `/`-separated, when it lies inside it.
fn relative(path: &Location, base: &Location) -> Option<String> {
    match (path, base) {
        (Location::Path(p), Location::Path(b)) => {
            let rest = p.strip_prefix(b).ok()?;
            let parts: Option<Vec<&str>> = rest.iter().map(|s| s.to_str()).collect();
            Some(parts?.join("/")).filter(|r| !r.is_empty())
        }
        (Location::Url(p), Location::Url(b))
        | (Location::Bundled(p), Location::Bundled(b))
        | (Location::Provided { path: p, .. }, Location::Provided { path: b, .. }) => {
            let b = b.trim_end_matches('/');
            let rest = p.strip_prefix(b)?;
            let rest = if b.is_empty() {
                rest
            } else {
                rest.strip_prefix('/')?
            };
            Some(rest.to_string()).filter(|r| !r.is_empty())
        }
        _ => None,
    }
}

/// Makes the entry of `skill`, asking its provider for its files now.
pub fn build(
    registry: &Registry,
    skill: &Arc<Skill>,
    namespace: Option<&str>,
    generation: u64,
) -> Result<Entry, LeftOut> {
    let watch = watch_path(skill);
    make(registry, skill, namespace, generation, watch.clone()).map_err(|reason| LeftOut {
        skill: skill.clone(),
        reason,
        watch,
        generation,
        again: false,
    })
}

fn make(
    registry: &Registry,
    skill: &Arc<Skill>,
    namespace: Option<&str>,
    generation: u64,
    watch: Option<PathBuf>,
) -> Result<Entry, String> {
    let name = skill.name().to_string();
    let bare = match namespace {
        Some(ns) => name
            .strip_prefix(ns)
            .and_then(|r| r.strip_prefix(':'))
            .ok_or_else(|| format!("its name is not in the {ns:?} namespace"))?,
        None => name.as_str(),
    };
    if !is_agent_skills_name(bare) {
        return Err(format!(
            "its name {bare:?} breaks the Agent Skills naming rules (1 to 64 of a-z, 0-9 and single inner hyphens)"
        ));
    }
    let mut frontmatter = skill.frontmatter_json();
    // A skill whose declared name could not name it (a display name, a
    // `prefix:name`) is served under its folder's: its entry carries that
    // name, as prompts and the tools do, so every list holds one set.
    if skill.frontmatter.display_name.is_some()
        && let Some(fields) = frontmatter.as_object_mut()
    {
        fields.insert("name".to_string(), Value::String(bare.to_string()));
    }
    let field = |key: &str| frontmatter.get(key).and_then(Value::as_str);
    if field("name") != Some(bare) || field("description").is_none() {
        return Err(
            "the Skills Extension needs `name` (the skill's) and `description` in its frontmatter"
                .to_string(),
        );
    }
    let doc = relative(&skill.path, &skill.base)
        .ok_or_else(|| format!("its document {} is not inside {}", skill.path, skill.base))?;
    let listed = registry
        .list_resources(&name)
        .map_err(|e| format!("its files could not be listed: {e}"))?;
    if listed.len() > MAX_FILES {
        return Err(format!(
            "it has {} files, more than the {MAX_FILES} a skill may have",
            listed.len()
        ));
    }
    let total: u64 = listed.iter().map(|r| r.size).sum();
    if total > MAX_BYTES {
        return Err(format!(
            "its files add up to {total} bytes, more than the {MAX_BYTES} a skill may have"
        ));
    }
    let root = skill_root(namespace, bare);
    let mut files = Vec::with_capacity(listed.len());
    for resource in listed {
        let rel = if resource.path == doc {
            SKILL_MD.to_string()
        } else if resource.path == SKILL_MD {
            return Err(format!(
                "it has both {doc} (its document) and a {SKILL_MD}, which would share a URI"
            ));
        } else {
            resource.path.clone()
        };
        let mime = if rel == SKILL_MD {
            Some(MARKDOWN)
        } else {
            mime_type(&rel)
        };
        files.push(FileEntry {
            uri: file_uri(&root, &rel),
            rel,
            path: resource.path,
            size: resource.size,
            digest: resource.digest,
            mime,
        });
    }
    if !files.iter().any(|f| f.rel == SKILL_MD) {
        return Err(format!("its document {doc} is not among its files"));
    }
    files.sort_by(|a, b| (a.rel != SKILL_MD, &a.rel).cmp(&(b.rel != SKILL_MD, &b.rel)));
    let uri = file_uri(&root, SKILL_MD);
    let frontmatter: SkillFrontmatter = serde_json::from_value(frontmatter)
        .map_err(|e| format!("its frontmatter cannot be served: {e}"))?;
    let wire = WireSkill::new(
        uri.clone(),
        frontmatter,
        SkillResources::Files(
            files
                .iter()
                .map(|f| WireResource::new(f.uri.clone(), f.digest.clone(), f.size))
                .collect(),
        ),
    );
    wire.validate()
        .map_err(|e| format!("its entry breaks the Skills Extension: {e}"))?;
    let wire_bytes = serde_json::to_vec(&wire).map_or(0, |v| v.len());
    Ok(Entry {
        skill: skill.clone(),
        name,
        root,
        uri,
        files,
        wire,
        wire_bytes,
        watch,
        generation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_naming_rule_is_the_ascii_agent_skills_one() {
        for good in ["a", "pdf-tools", "x1", &"a".repeat(64)] {
            assert!(is_agent_skills_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "Pdf",
            "a_b",
            "ü",
            "a b",
            &"a".repeat(65),
        ] {
            assert!(!is_agent_skills_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_document_is_found_relative_to_its_base() {
        let path = |p: &str| Location::Path(PathBuf::from(p));
        assert_eq!(
            relative(&path("/r/pdf/SKILL.md"), &path("/r/pdf")).as_deref(),
            Some("SKILL.md")
        );
        assert_eq!(
            relative(&path("/r/flat.md"), &path("/r")).as_deref(),
            Some("flat.md")
        );
        assert_eq!(relative(&path("/elsewhere/x.md"), &path("/r")), None);
        let url = |u: &str| Location::Url(u.to_string());
        assert_eq!(
            relative(&url("https://h/m/pdf/SKILL.md"), &url("https://h/m/pdf/")).as_deref(),
            Some("SKILL.md")
        );
        assert_eq!(
            relative(&url("https://h/m/pdfx/SKILL.md"), &url("https://h/m/pdf")),
            None
        );
        let bundled = |b: &str| Location::Bundled(b.to_string());
        assert_eq!(
            relative(&bundled("a/SKILL.md"), &bundled("a")).as_deref(),
            Some("SKILL.md")
        );
    }
}
