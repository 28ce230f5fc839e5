//! A provider that tests the sandbox from the inside.
//!
//! `snapshot` attempts things a provider must not be able to do and reports
//! each outcome as a diagnostic whose path names the attempt and whose
//! message starts with `allowed` or `denied`. Settings make exports
//! misbehave on purpose: `loop = <export>` spins forever in that export,
//! `trap = <export>` panics in it, `fail-if-exists = <file>` makes
//! `snapshot` panic while that file exists in the first root, and
//! `invalidate-during-snapshot = <n>` makes the first n snapshots invalidate
//! the provider while they run. `load("probe")` answers its one skill.

use skillhost_guest_sdk::skill::frontmatter::Frontmatter;
use skillhost_guest_sdk::{
    Diagnostic, Observation, Provider, ProviderConfig, ProviderError, Severity, SkillDocument,
    SkillEntry, SnapshotRequest, full_observation, to_wit_frontmatter,
};
use std::hint::black_box;

/// The probe's state: its roots, its settings and how many snapshots it took.
pub struct Probe {
    roots: Vec<String>,
    settings: Vec<(String, String)>,
    snapshots: u32,
}

impl Probe {
    fn setting(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Misbehaves in `export` if the settings say so.
    fn misbehave(settings: &[(String, String)], export: &str) {
        let wants = |key: &str| settings.iter().any(|(k, v)| k == key && v == export);
        if wants("loop") {
            let mut n: u64 = 0;
            loop {
                n = black_box(n.wrapping_add(1));
            }
        }
        if wants("trap") {
            panic!("probe asked to trap in {export}");
        }
    }
}

impl Probe {
    /// Its one skill, placed in its first root.
    fn entry(&self) -> SkillEntry {
        let root = self.roots.first().cloned().unwrap_or_default();
        let mut frontmatter = Frontmatter::defaults("probe");
        frontmatter.description = Some("Reports what the sandbox let it do".to_string());
        SkillEntry {
            frontmatter: to_wit_frontmatter(frontmatter),
            path: format!("{root}/probe/SKILL.md"),
            base: format!("{root}/probe"),
        }
    }
}

fn outcome<T, E: std::fmt::Display>(attempt: &str, result: Result<T, E>) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        path: attempt.to_string(),
        line: None,
        field: None,
        message: match result {
            Ok(_) => "allowed".to_string(),
            Err(e) => format!("denied: {e}"),
        },
    }
}

impl Provider for Probe {
    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        Probe::misbehave(&config.settings, "init");
        Ok(Probe {
            roots: config.roots,
            settings: config.settings,
            snapshots: 0,
        })
    }

    fn snapshot(&mut self, _request: SnapshotRequest) -> Observation {
        Probe::misbehave(&self.settings, "snapshot");
        self.snapshots += 1;
        let restless: u32 = self
            .setting("invalidate-during-snapshot")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if self.snapshots <= restless {
            // As if a change arrived while discovery was running.
            skillhost_guest_sdk::host::invalidate_provider();
        }
        let root = self.roots.first().cloned().unwrap_or_default();
        if let Some(flag) = self.setting("fail-if-exists")
            && std::fs::metadata(format!("{root}/{flag}")).is_ok()
        {
            panic!("probe found {flag} and fails as asked");
        }
        let outside = self
            .setting("outside")
            .unwrap_or("/etc/hostname")
            .to_string();
        let diagnostics = vec![
            outcome(
                "write-in-root",
                std::fs::write(format!("{root}/written-by-probe.txt"), b"x"),
            ),
            outcome(
                "create-dir-in-root",
                std::fs::create_dir(format!("{root}/probe-dir")),
            ),
            outcome("read-in-root", std::fs::read(format!("{root}/inside.txt"))),
            outcome("read-outside", std::fs::read(&outside)),
            outcome(
                "read-parent-of-root",
                std::fs::read(format!("{root}/../outside.txt")),
            ),
            outcome("list-filesystem-root", std::fs::read_dir("/")),
            outcome(
                "environment",
                match std::env::vars().count() {
                    0 => Err("empty"),
                    _ => Ok(()),
                },
            ),
        ];
        full_observation(vec![self.entry()], diagnostics, true)
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        Probe::misbehave(&self.settings, "load");
        if name != "probe" {
            return Err(ProviderError::NotFound(name.to_string()));
        }
        Ok(SkillDocument {
            entry: self.entry(),
            body: "Reports what the sandbox let it do.\n".to_string(),
        })
    }
}

skillhost_guest_sdk::export_provider!(Probe);
