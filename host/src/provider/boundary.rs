//! Validation of everything a provider returns: names, lengths, counts and
//! paths are checked before anything reaches the registry. A violation
//! becomes a diagnostic against the provider, never a panic, and the host
//! never touches a path because a provider named it: guest paths are
//! translated through the grants, which is pure string work.
//!
//! A skill's typed fields are derived here from the JSON the provider made
//! of its frontmatter, with the format crate's one set of field rules
//! (`skillhost_skill::frontmatter::from_json`): the host parses bounded
//! JSON, never a provider's YAML, and every provider's skills read the
//! same way. A 0.1.0 or 0.2.0 component's own fields are kept as given.

use crate::model::{Diagnostic, Scope, Severity, Skill, SkillDocument, SkillResource};
use crate::sandbox::Grants;
use crate::sandbox::contract as wit;
use crate::text::{clip, shown};
use skillhost_skill::digest;
use skillhost_skill::frontmatter::{
    Finding, Frontmatter, MAX_DOCUMENT_BYTES, MAX_FRONTMATTER_BYTES, from_json,
};
use skillhost_skill::names::check_name;
use skillhost_skill::segments;
use std::sync::Arc;

/// Caps on what one provider may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Most skills in one observation.
    pub max_skills: usize,
    /// Longest text field (description, paths, ...), in bytes.
    pub max_text: usize,
    /// Longest verbatim frontmatter, in bytes.
    pub max_frontmatter: usize,
    /// Most items in one list field.
    pub max_list: usize,
    /// Largest skill body, in bytes.
    pub max_body: usize,
    /// Most diagnostics kept from one observation.
    pub max_diagnostics: usize,
    /// Most entries refused at the boundary the host remembers (each is a
    /// diagnostic it keeps showing).
    pub max_rejected: usize,
    /// Most bytes of entries one observation may carry; entries past it
    /// are dropped with a diagnostic.
    pub max_observation_bytes: usize,
    /// Most bytes the host keeps for one skill (its texts, as
    /// `entry_bytes` counts them); a larger entry is refused at the
    /// boundary, whatever each field's own cap allows.
    pub max_skill_bytes: usize,
    /// Most bytes the host keeps for all of one provider's skills, across
    /// every delta; entries past it are refused with a diagnostic naming
    /// the budget, and what the host held stays.
    pub max_provider_bytes: usize,
    /// Most files one skill may list (the MCP Skills Extension's limit).
    pub max_resources: usize,
    /// Most bytes one skill's files may add up to, and one file may have
    /// (the MCP Skills Extension's limit).
    pub max_resource_bytes: u64,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_skills: 10_000,
            max_text: 16 * 1024,
            max_frontmatter: MAX_FRONTMATTER_BYTES,
            max_list: 256,
            max_body: MAX_DOCUMENT_BYTES as usize,
            max_diagnostics: 1_000,
            max_rejected: 1_000,
            max_observation_bytes: 64 * 1024 * 1024,
            max_skill_bytes: 512 * 1024,
            max_provider_bytes: 64 * 1024 * 1024,
            max_resources: skillhost_skill::limits::MAX_FILES,
            max_resource_bytes: skillhost_skill::limits::MAX_BYTES,
        }
    }
}

/// Roughly what an entry costs the host to hold: the bytes of its texts.
pub(crate) fn entry_bytes(entry: &wit::SkillEntry) -> usize {
    let given = entry.given.as_deref().map_or(0, fields_bytes);
    entry.name.len()
        + entry.path.len()
        + entry.base.len()
        + entry.raw.len()
        + entry.json.len()
        + given
}

/// The bytes of a frontmatter's normalised texts.
fn fields_bytes(f: &Frontmatter) -> usize {
    let text = |t: &Option<String>| t.as_ref().map_or(0, String::len);
    let list = |l: &[String]| l.iter().map(String::len).sum::<usize>();
    f.name.len()
        + text(&f.description)
        + text(&f.when_to_use)
        + text(&f.argument_hint)
        + text(&f.model)
        + text(&f.effort)
        + text(&f.version)
        + text(&f.agent)
        + text(&f.license)
        + text(&f.compatibility)
        + list(&f.allowed_tools)
        + list(&f.paths)
        + list(&f.aliases)
        + f.metadata
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum::<usize>()
}

/// Translates and validates a provider's diagnostics (capped).
pub(crate) fn diagnostics(
    list: Vec<wit::Diagnostic>,
    grants: &Grants,
    source: &str,
    caps: &Caps,
) -> Vec<Diagnostic> {
    let total = list.len();
    let mut out: Vec<Diagnostic> = list
        .into_iter()
        .take(caps.max_diagnostics)
        .map(|d| diagnostic(d, grants, source))
        .collect();
    if total > caps.max_diagnostics {
        out.push(
            Diagnostic::warning(
                source,
                format!(
                    "provider {source}: {} more diagnostics dropped, over the {} kept from one observation",
                    total - caps.max_diagnostics,
                    caps.max_diagnostics
                ),
            )
            .from_source(source),
        );
    }
    out
}

/// The diagnostic for a rejected skill entry.
pub fn rejected(entry_path: &str, grants: &Grants, source: &str, reason: &str) -> Diagnostic {
    let shown = grants
        .locate(entry_path)
        .map_or_else(|| source.to_string(), |l| l.to_string());
    Diagnostic::error(shown, format!("skill entry rejected: {reason}")).from_source(source)
}

/// Translates a provider's diagnostic: paths mapped to the host, text
/// clipped and cleaned of control characters (which would let a provider
/// forge lines in listings and logs).
pub(crate) fn diagnostic(d: wit::Diagnostic, grants: &Grants, source: &str) -> Diagnostic {
    let path = grants
        .locate(&d.path)
        .map_or_else(|| shown(&d.path, 1024), |l| l.to_string());
    Diagnostic {
        severity: match d.severity {
            wit::Severity::Error => Severity::Error,
            wit::Severity::Warning => Severity::Warning,
        },
        path,
        line: d.line,
        field: d.field.map(|f| shown(&f, 64)),
        message: shown(&d.message, 2048),
        source: Some(source.to_string()),
    }
}

/// A skill entry that passed the boundary, and the warnings the field
/// rules gave about its frontmatter (values of the wrong shape, a missing
/// description), which hold as long as the entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// The skill.
    pub skill: Skill,
    /// Warnings about its fields, against its document.
    pub warnings: Vec<Diagnostic>,
}

/// Validates one skill entry and derives its fields.
pub(crate) fn skill(
    entry: wit::SkillEntry,
    grants: &Grants,
    source: &str,
    caps: &Caps,
) -> Result<Checked, String> {
    let path = grants.locate(&entry.path).ok_or_else(|| {
        format!(
            "path {:?} is outside the provider's grants",
            clip(&entry.path, 256)
        )
    })?;
    let base = grants.locate(&entry.base).ok_or_else(|| {
        format!(
            "base {:?} is outside the provider's grants",
            clip(&entry.base, 256)
        )
    })?;
    check_name(&entry.name).map_err(|e| format!("{e} ({:?})", clip(&entry.name, 80)))?;
    if entry.raw.len() > caps.max_frontmatter {
        return Err(format!(
            "frontmatter is {} bytes, over the {} byte cap",
            entry.raw.len(),
            caps.max_frontmatter
        ));
    }
    // JSON escapes make it longer than the YAML it renders.
    let json_cap = caps.max_frontmatter.saturating_mul(2);
    if entry.json.len() > json_cap {
        return Err(format!(
            "frontmatter JSON is {} bytes, over the {json_cap} byte cap",
            entry.json.len()
        ));
    }
    let (frontmatter, findings) = match entry.given {
        Some(mut given) => {
            checked_given_json(&entry.json)?;
            given.raw = entry.raw;
            given.name = entry.name;
            (*given, Vec::new())
        }
        None => from_json(&entry.raw, &entry.json, &entry.name).map_err(|f| f.message)?,
    };
    let frontmatter = within_caps(frontmatter, caps)?;
    let shown_at = path.to_string();
    let warnings = findings
        .into_iter()
        .map(|finding| field_warning(&shown_at, source, finding))
        .collect();
    Ok(Checked {
        skill: Skill {
            source: source.to_string(),
            scope: Scope::User,
            path,
            base,
            frontmatter,
            json: Some(Arc::from(entry.json)),
        },
        warnings,
    })
}

fn field_warning(path: &str, source: &str, finding: Finding) -> Diagnostic {
    let mut d = Diagnostic::warning(path, shown(&finding.message, 2048)).from_source(source);
    d.line = finding.line;
    d.field = finding.field.map(|f| shown(&f, 64));
    d
}

/// Checks the frontmatter JSON a 0.1.0 or 0.2.0 component came with: one
/// JSON object, or `null` ("not YAML the parser accepts", as 0.1.0's
/// conversion says it). Its fields were given, so it is checked without
/// being built (the host parses it only where the JSON is shown).
fn checked_given_json(json: &str) -> Result<(), String> {
    let text = json.trim_start();
    if !(text.starts_with('{') || text.starts_with("null")) {
        return Err("frontmatter JSON is not a JSON object".to_string());
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map_err(|e| format!("frontmatter JSON does not parse: {e}"))?;
    Ok(())
}

/// Validates a loaded document.
pub(crate) fn document(
    doc: wit::SkillDocument,
    grants: &Grants,
    source: &str,
    caps: &Caps,
) -> Result<SkillDocument, String> {
    if doc.body.len() > caps.max_body {
        return Err(format!(
            "body is {} bytes, over the {} byte cap",
            doc.body.len(),
            caps.max_body
        ));
    }
    Ok(SkillDocument {
        skill: skill(doc.entry, grants, source, caps)?.skill,
        body: doc.body,
    })
}

/// Validates a resource listing.
pub(crate) fn resources(
    list: Vec<wit::Resource>,
    caps: &Caps,
) -> Result<Vec<SkillResource>, String> {
    if list.len() > caps.max_resources {
        return Err(format!(
            "listed {} files, over the limit of {} per skill",
            list.len(),
            caps.max_resources
        ));
    }
    let total = list.iter().fold(0u64, |sum, r| sum.saturating_add(r.size));
    if total > caps.max_resource_bytes {
        return Err(format!(
            "its files add up to {total} bytes, over the limit of {} per skill",
            caps.max_resource_bytes
        ));
    }
    list.into_iter()
        .map(|r| {
            let relative_ok = segments::is_relative(&r.path) && r.path.len() <= caps.max_text;
            if !relative_ok {
                return Err(format!(
                    "resource path {:?} is not a relative path",
                    clip(&r.path, 256)
                ));
            }
            if !digest::is_sha256(&r.digest) {
                return Err(format!("resource {:?} has a malformed digest", r.path));
            }
            Ok(SkillResource {
                path: r.path,
                size: r.size,
                digest: r.digest,
            })
        })
        .collect()
}

/// The fields, refused when any is over its cap (given fields are the
/// provider's word; derived ones are bounded by the JSON's size, but one
/// field may still be longer than the host keeps).
fn within_caps(f: Frontmatter, caps: &Caps) -> Result<Frontmatter, String> {
    let text = |field: &str, value: &Option<String>| -> Result<(), String> {
        match value {
            Some(v) if v.len() > caps.max_text => Err(format!(
                "{field} is {} bytes, over the {} byte cap",
                v.len(),
                caps.max_text
            )),
            _ => Ok(()),
        }
    };
    let list = |field: &str, items: &[String]| -> Result<(), String> {
        if items.len() > caps.max_list {
            return Err(format!(
                "{field} has {} items, over the cap of {}",
                items.len(),
                caps.max_list
            ));
        }
        if let Some(long) = items.iter().find(|i| i.len() > caps.max_text) {
            return Err(format!(
                "an item of {field} is {} bytes, over the cap",
                long.len()
            ));
        }
        Ok(())
    };
    text("description", &f.description)?;
    text("when_to_use", &f.when_to_use)?;
    text("argument-hint", &f.argument_hint)?;
    text("model", &f.model)?;
    text("effort", &f.effort)?;
    text("version", &f.version)?;
    text("agent", &f.agent)?;
    text("license", &f.license)?;
    text("compatibility", &f.compatibility)?;
    list("allowed-tools", &f.allowed_tools)?;
    list("paths", &f.paths)?;
    list("aliases", &f.aliases)?;
    if let Some(bad) = f.aliases.iter().find(|a| check_name(a).is_err()) {
        return Err(format!("alias {:?} is not a safe name", clip(bad, 80)));
    }
    if f.metadata.len() > caps.max_list {
        return Err(format!(
            "metadata has {} entries, over the cap of {}",
            f.metadata.len(),
            caps.max_list
        ));
    }
    if f.metadata
        .iter()
        .any(|(k, v)| k.len() > caps.max_text || v.len() > caps.max_text)
    {
        return Err("a metadata entry is over the length cap".to_string());
    }
    Ok(f)
}

#[cfg(test)]
#[path = "boundary_tests.rs"]
mod tests;
