//! Validation of everything a provider returns (SPEC I3): names, lengths,
//! counts and paths are checked before anything reaches the registry. A
//! violation becomes a diagnostic against the provider, never a panic, and
//! the host never touches a path because a provider named it: guest paths
//! are translated through the grants, which is pure string work.

use crate::bindings::types as wit;
use crate::capabilities::Grants;
use crate::host_api::clip;
use crate::model::{Diagnostic, Severity, Skill, SkillDocument, SkillResource};
use skillhost_guest_sdk::frontmatter::{Context, Frontmatter, MAX_DOCUMENT_BYTES};
use skillhost_guest_sdk::names::check_name;
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
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            max_skills: 10_000,
            max_text: 16 * 1024,
            max_frontmatter: 64 * 1024,
            max_list: 256,
            max_body: MAX_DOCUMENT_BYTES as usize,
            max_diagnostics: 1_000,
        }
    }
}

/// What one provider currently contributes to the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderObservation {
    /// Its valid skills, in its order.
    pub skills: Vec<Arc<Skill>>,
    /// Its diagnostics, and the host's about it.
    pub diagnostics: Vec<Diagnostic>,
    /// Whether it saw everything.
    pub complete: bool,
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
                format!("{} more diagnostics dropped", total - caps.max_diagnostics),
            )
            .from_source(source),
        );
    }
    out
}

/// The diagnostic for a rejected skill entry.
pub fn rejected(entry_path: &str, grants: &Grants, source: &str, reason: &str) -> Diagnostic {
    let shown = grants
        .to_host(entry_path)
        .map_or_else(|| source.to_string(), |p| p.display().to_string());
    Diagnostic::error(shown, format!("skill entry rejected: {reason}")).from_source(source)
}

/// Translates a provider's diagnostic (paths mapped to the host, text clipped).
pub fn diagnostic(d: wit::Diagnostic, grants: &Grants, source: &str) -> Diagnostic {
    let path = grants
        .to_host(&d.path)
        .map_or_else(|| clean(clip(&d.path, 1024)), |p| p.display().to_string());
    Diagnostic {
        severity: match d.severity {
            wit::Severity::Error => Severity::Error,
            wit::Severity::Warning => Severity::Warning,
        },
        path,
        line: d.line,
        field: d.field.map(|f| clean(clip(&f, 64))),
        message: clean(clip(&d.message, 2048)),
        source: Some(source.to_string()),
    }
}

/// Control characters would let a provider forge lines in listings and logs.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
}

/// Validates one skill entry.
pub fn skill(
    entry: wit::SkillEntry,
    grants: &Grants,
    source: &str,
    caps: &Caps,
) -> Result<Skill, String> {
    let path = grants.to_host(&entry.path).ok_or_else(|| {
        format!(
            "path {:?} is outside the provider's grants",
            clip(&entry.path, 256)
        )
    })?;
    let base = grants.to_host(&entry.base).ok_or_else(|| {
        format!(
            "base {:?} is outside the provider's grants",
            clip(&entry.base, 256)
        )
    })?;
    Ok(Skill {
        source: source.to_string(),
        scope: crate::model::Scope::User,
        path,
        base,
        frontmatter: frontmatter(entry.frontmatter, caps)?,
    })
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
    list.into_iter()
        .map(|r| {
            let relative_ok = !r.path.is_empty()
                && !r.path.starts_with('/')
                && r.path
                    .split('/')
                    .all(|s| !s.is_empty() && s != "." && s != "..")
                && !r.path.chars().any(char::is_control)
                && r.path.len() <= caps.max_text;
            if !relative_ok {
                return Err(format!(
                    "resource path {:?} is not a relative path",
                    clip(&r.path, 256)
                ));
            }
            let digest_ok = r.digest.len() == 71
                && r.digest.starts_with("sha256:")
                && r.digest[7..]
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            if !digest_ok {
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
mod tests {
    use super::*;
    use crate::capabilities::{GrantedRoot, Mount};

    fn grants() -> Grants {
        Grants {
            roots: vec![GrantedRoot {
                guest: "/skills/0".into(),
                host: "/home/u/skills".into(),
                present: true,
            }],
            mounts: vec![Mount {
                guest: "/skills/0".into(),
                host: "/home/u/skills".into(),
            }],
            virtual_roots: Vec::new(),
            origins: Vec::new(),
        }
    }

    fn entry(name: &str) -> wit::SkillEntry {
        wit::SkillEntry {
            frontmatter: wit::Frontmatter {
                raw: format!("name: {name}"),
                name: name.to_string(),
                description: Some("d".into()),
                when_to_use: None,
                argument_hint: None,
                context: wit::InvocationContext::Inline,
                model: None,
                effort: None,
                allowed_tools: Vec::new(),
                user_invocable: true,
                disable_model_invocation: false,
                paths: Vec::new(),
                aliases: Vec::new(),
                version: None,
                agent: None,
                pinned: false,
                license: None,
                compatibility: None,
                metadata: Vec::new(),
            },
            path: "/skills/0/x/SKILL.md".into(),
            base: "/skills/0/x".into(),
        }
    }

    #[test]
    fn a_valid_entry_gets_host_paths() {
        let skill = skill(entry("x"), &grants(), "p", &Caps::default()).unwrap();
        assert_eq!(
            skill.path,
            std::path::PathBuf::from("/home/u/skills/x/SKILL.md")
        );
        assert_eq!(skill.base, std::path::PathBuf::from("/home/u/skills/x"));
    }

    #[test]
    fn unsafe_names_paths_and_sizes_are_rejected() {
        let caps = Caps::default();
        for bad in ["../x", "a\nb", "", "origin:x"] {
            assert!(skill(entry(bad), &grants(), "p", &caps).is_err(), "{bad:?}");
        }
        let mut outside = entry("x");
        outside.path = "/etc/passwd".into();
        assert!(
            skill(outside, &grants(), "p", &caps)
                .unwrap_err()
                .contains("outside")
        );
        let mut climbing = entry("x");
        climbing.base = "/skills/0/../..".into();
        assert!(skill(climbing, &grants(), "p", &caps).is_err());
        let mut long = entry("x");
        long.frontmatter.description = Some("d".repeat(caps.max_text + 1));
        assert!(
            skill(long, &grants(), "p", &caps)
                .unwrap_err()
                .contains("description")
        );
        let mut many = entry("x");
        many.frontmatter.allowed_tools = vec!["t".into(); caps.max_list + 1];
        assert!(
            skill(many, &grants(), "p", &caps)
                .unwrap_err()
                .contains("allowed-tools")
        );
        let mut alias = entry("x");
        alias.frontmatter.aliases = vec!["../up".into()];
        assert!(
            skill(alias, &grants(), "p", &caps)
                .unwrap_err()
                .contains("alias")
        );
    }

    #[test]
    fn diagnostics_are_mapped_clipped_and_cleaned() {
        let d = diagnostic(
            wit::Diagnostic {
                severity: wit::Severity::Error,
                path: "/skills/0/x/SKILL.md".into(),
                line: Some(3),
                field: Some("name".into()),
                message: format!("forged\nerror: line{}", "!".repeat(5000)),
            },
            &grants(),
            "p",
        );
        assert_eq!(d.path, "/home/u/skills/x/SKILL.md");
        assert!(!d.message.contains('\n'));
        assert!(d.message.len() <= 2048);
        let capped = diagnostics(
            vec![
                wit::Diagnostic {
                    severity: wit::Severity::Warning,
                    path: "x".into(),
                    line: None,
                    field: None,
                    message: "m".into(),
                };
                5
            ],
            &grants(),
            "p",
            &Caps {
                max_diagnostics: 2,
                ..Caps::default()
            },
        );
        assert_eq!(capped.len(), 3);
        assert!(capped[2].message.contains("3 more"));
    }

    #[test]
    fn resource_listings_need_relative_paths_and_sha256_digests() {
        let ok = wit::Resource {
            path: "references/a.md".into(),
            size: 1,
            digest: format!("sha256:{}", "a".repeat(64)),
        };
        assert!(resources(vec![ok.clone()], &Caps::default()).is_ok());
        for (path, digest) in [
            ("../x", ok.digest.clone()),
            ("/abs", ok.digest.clone()),
            ("a", "md5:abc".to_string()),
            ("a", format!("sha256:{}", "G".repeat(64))),
        ] {
            let bad = wit::Resource {
                path: path.into(),
                size: 1,
                digest,
            };
            assert!(resources(vec![bad], &Caps::default()).is_err(), "{path}");
        }
    }
}
