//! Validation of everything a provider returns: names, lengths, counts and
//! paths are checked before anything reaches the registry. A violation
//! becomes a diagnostic against the provider, never a panic, and the host
//! never touches a path because a provider named it: guest paths are
//! translated through the grants, which is pure string work.

use crate::model::{Diagnostic, Scope, Severity, Skill, SkillDocument, SkillResource};
use crate::sandbox::Grants;
use crate::sandbox::bindings::latest::types as wit;
use crate::text::{clip, shown};
use skillhost_skill::digest;
use skillhost_skill::frontmatter::{
    Context, Frontmatter, MAX_DOCUMENT_BYTES, MAX_FRONTMATTER_BYTES,
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
    /// Most files one skill may list (the MCP Skills Extension's limit).
    pub max_resources: usize,
    /// Most bytes one skill's files may add up to, and one file may have
    /// (the MCP Skills Extension's limit).
    pub max_resource_bytes: u64,
}

/// Files per skill the MCP Skills Extension allows.
pub const MAX_RESOURCES: usize = 512;
/// Bytes per skill the MCP Skills Extension allows.
pub const MAX_RESOURCE_BYTES: u64 = 16 * 1024 * 1024;

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
            max_resources: MAX_RESOURCES,
            max_resource_bytes: MAX_RESOURCE_BYTES,
        }
    }
}

/// Roughly what an entry costs the host to hold: the bytes of its texts.
pub fn entry_bytes(entry: &wit::SkillEntry) -> usize {
    let f = &entry.frontmatter;
    let text = |t: &Option<String>| t.as_ref().map_or(0, String::len);
    let list = |l: &[String]| l.iter().map(String::len).sum::<usize>();
    entry.path.len()
        + entry.base.len()
        + f.raw.len()
        + f.json.len()
        + f.name.len()
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
pub fn diagnostics(
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
pub fn diagnostic(d: wit::Diagnostic, grants: &Grants, source: &str) -> Diagnostic {
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

/// Validates one skill entry.
pub fn skill(
    entry: wit::SkillEntry,
    grants: &Grants,
    source: &str,
    caps: &Caps,
) -> Result<Skill, String> {
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
    let mut fields = entry.frontmatter;
    let json = checked_json(std::mem::take(&mut fields.json), caps)?;
    Ok(Skill {
        source: source.to_string(),
        scope: Scope::User,
        path,
        base,
        frontmatter: frontmatter(fields, caps)?,
        json: Some(json),
    })
}

/// Checks the frontmatter JSON a provider made: one JSON object (or
/// `null`, "not YAML the parser accepts", as 0.1.0's conversion says it),
/// within the cap. Checked without building it (the host holds the text
/// and parses it only where the JSON is shown).
fn checked_json(json: String, caps: &Caps) -> Result<Arc<str>, String> {
    // JSON escapes make it longer than the YAML it renders.
    let cap = caps.max_frontmatter.saturating_mul(2);
    if json.len() > cap {
        return Err(format!(
            "frontmatter JSON is {} bytes, over the {cap} byte cap",
            json.len()
        ));
    }
    let text = json.trim_start();
    if !(text.starts_with('{') || text.starts_with("null")) {
        return Err("frontmatter JSON is not a JSON object".to_string());
    }
    serde_json::from_str::<serde::de::IgnoredAny>(text)
        .map_err(|e| format!("frontmatter JSON does not parse: {e}"))?;
    Ok(Arc::from(json))
}

/// Validates a loaded document.
pub fn document(
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
        skill: skill(doc.entry, grants, source, caps)?,
        body: doc.body,
    })
}

/// Validates a resource listing.
pub fn resources(list: Vec<wit::Resource>, caps: &Caps) -> Result<Vec<SkillResource>, String> {
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

fn frontmatter(f: wit::Frontmatter, caps: &Caps) -> Result<Frontmatter, String> {
    check_name(&f.name).map_err(|e| format!("{e} ({:?})", clip(&f.name, 80)))?;
    if f.raw.len() > caps.max_frontmatter {
        return Err(format!(
            "frontmatter is {} bytes, over the {} byte cap",
            f.raw.len(),
            caps.max_frontmatter
        ));
    }
    let text = |field: &str, value: Option<String>| -> Result<Option<String>, String> {
        match value {
            Some(v) if v.len() > caps.max_text => Err(format!(
                "{field} is {} bytes, over the {} byte cap",
                v.len(),
                caps.max_text
            )),
            other => Ok(other),
        }
    };
    let list = |field: &str, items: Vec<String>| -> Result<Vec<String>, String> {
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
        Ok(items)
    };
    let aliases = list("aliases", f.aliases)?;
    if let Some(bad) = aliases.iter().find(|a| check_name(a).is_err()) {
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
    Ok(Frontmatter {
        description: text("description", f.description)?,
        when_to_use: text("when_to_use", f.when_to_use)?,
        argument_hint: text("argument-hint", f.argument_hint)?,
        context: match f.context {
            wit::InvocationContext::Inline => Context::Inline,
            wit::InvocationContext::Fork => Context::Fork,
        },
        model: text("model", f.model)?,
        effort: text("effort", f.effort)?,
        allowed_tools: list("allowed-tools", f.allowed_tools)?,
        user_invocable: f.user_invocable,
        disable_model_invocation: f.disable_model_invocation,
        paths: list("paths", f.paths)?,
        aliases,
        version: text("version", f.version)?,
        agent: text("agent", f.agent)?,
        pinned: f.pinned,
        license: text("license", f.license)?,
        compatibility: text("compatibility", f.compatibility)?,
        metadata: f.metadata,
        raw: f.raw,
        name: f.name,
    })
}

#[cfg(test)]
#[path = "boundary_tests.rs"]
mod tests;
