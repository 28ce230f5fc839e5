//! The bundled skill provider: skills compiled into the component
//! from `providers/bundled/skills` at build time. The host ships it embedded
//! as the lowest-precedence source. It needs no grant at all: no files, no
//! network.

// Its catalog is many small strings made and freed on every call.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: skillhost_guest_sdk::alloc::SizeClasses =
    skillhost_guest_sdk::alloc::SizeClasses::system();

use skillhost_guest_sdk::delta::Changes;
use skillhost_guest_sdk::skill::digest;
use skillhost_guest_sdk::skill::frontmatter::parse_document;
use skillhost_guest_sdk::skill::layout::SKILL_FILE;
use skillhost_guest_sdk::{
    Diagnostic, Manifest, Need, Observation, Provider, ProviderConfig, ProviderError, Resource,
    Severity, SkillDocument, SkillEntry, SnapshotRequest, parse_skill, to_wit_diagnostic,
};

include!(concat!(env!("OUT_DIR"), "/files.rs"));

/// Where bundled skills live, as the host sees the provider's paths.
pub const ROOT: &str = "/bundled";

/// The provider: the parsed entries, made once. Nothing changes while it
/// runs, so a host holding its observation gets an empty delta.
pub struct Bundled {
    skills: Vec<SkillEntry>,
    diagnostics: Vec<Diagnostic>,
    changes: Changes,
}

fn file(skill: &str, path: &str) -> Option<&'static [u8]> {
    FILES
        .iter()
        .find(|(s, p, _)| *s == skill && *p == path)
        .map(|(_, _, bytes)| *bytes)
}

fn folder_of(name: &str, skills: &[SkillEntry]) -> Option<String> {
    skills
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.base.rsplit('/').next().map(str::to_string))
}

impl Provider for Bundled {
    fn manifest() -> Manifest {
        Manifest {
            summary: "Skills compiled into the component; it needs no grant".to_string(),
            roots: Need::None,
            origins: Vec::new(),
            settings: Vec::new(),
        }
    }

    fn init(_config: ProviderConfig) -> Result<Self, ProviderError> {
        let mut skills = Vec::new();
        let mut diagnostics = Vec::new();
        for (folder, path, bytes) in FILES.iter().filter(|(_, p, _)| *p == SKILL_FILE) {
            let doc_path = format!("{ROOT}/{folder}/{path}");
            match parse_skill(bytes, folder) {
                Ok(doc) => skills.push(doc.entry(doc_path, format!("{ROOT}/{folder}"))),
                Err(finding) => {
                    diagnostics.push(to_wit_diagnostic(&doc_path, Severity::Error, finding))
                }
            }
        }
        Ok(Bundled {
            skills,
            diagnostics,
            changes: Changes::new(),
        })
    }

    fn snapshot(&mut self, request: SnapshotRequest) -> Observation {
        self.changes.observation(
            request.known,
            &mut self.skills.as_slice(),
            self.diagnostics.clone(),
            true,
        )
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        let entry = self
            .skills
            .iter()
            .find(|s| s.name == name)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(format!("no bundled skill named {name:?}")))?;
        let folder = folder_of(name, &self.skills).unwrap_or_default();
        let bytes =
            file(&folder, SKILL_FILE).ok_or_else(|| ProviderError::NotFound(name.to_string()))?;
        let doc =
            parse_document(bytes, &folder).map_err(|f| ProviderError::Invalid(f.to_string()))?;
        Ok(SkillDocument {
            entry,
            body: doc.body.to_string(),
        })
    }

    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let folder = folder_of(name, &self.skills)
            .ok_or_else(|| ProviderError::NotFound(format!("no bundled skill named {name:?}")))?;
        Ok(FILES
            .iter()
            .filter(|(s, _, _)| *s == folder)
            .map(|(_, path, bytes)| Resource {
                path: path.to_string(),
                size: bytes.len() as u64,
                digest: digest::sha256(bytes),
            })
            .collect())
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let folder = folder_of(name, &self.skills)
            .ok_or_else(|| ProviderError::NotFound(format!("no bundled skill named {name:?}")))?;
        file(&folder, path)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| ProviderError::NotFound(format!("{name} has no file {path:?}")))
    }
}

skillhost_guest_sdk::export_provider!(Bundled);
