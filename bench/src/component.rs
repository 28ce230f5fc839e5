//! A provider component's start-up costs, for big components such as a
//! CPython one: the first start (compile, then instantiate and `init`),
//! a start from the compile cache in a new engine (what the next process
//! pays), a restart after a fault (a new instance of the component already
//! loaded: what the registry pays), and the resident memory each idle
//! instance adds. Each start is timed through its first snapshot.

use super::{median, ms, timed};
use anyhow::{Context as _, Result};
use serde_json::json;
use skillhost::provider::direct::DirectInstance;
use skillhost::sandbox::{LoadedComponent, SandboxEngine};
use skillhost::{ProviderSpec, Scope};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// What was measured.
pub struct ComponentReport {
    /// The component's file and size.
    pub file: String,
    pub bytes: u64,
    /// Compile, instantiate, `init` and the first snapshot, no cache.
    pub first_start: Duration,
    /// The same in a new engine, loading the compile cache's entry.
    pub cached_start: Duration,
    /// Median of `restarts`: a new instance of the loaded component
    /// (instantiate, `init`, first snapshot), as after a fault.
    pub restart: Duration,
    pub restarts: usize,
    /// Resident KiB each of `idle` live instances adds.
    pub idle_kib: u64,
    pub idle: usize,
    /// Skills its snapshot listed (a start that served nothing is no start).
    pub skills: usize,
}

/// The target for a restart from the cache.
const RESTART_TARGET: Duration = Duration::from_millis(10);

fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

fn started(
    engine: &SandboxEngine,
    component: &Arc<LoadedComponent>,
) -> Result<(DirectInstance, usize)> {
    let spec = ProviderSpec::new("bench", Scope::User, component.clone());
    let mut instance =
        DirectInstance::start(engine, spec).context("the component does not start")?;
    let observed = instance
        .snapshot(None, false)
        .context("its first snapshot failed")?;
    let skills = observed
        .entries
        .iter()
        .filter(|e| e.verdict.is_ok())
        .count();
    Ok((instance, skills))
}

/// Measures the component in `file`.
pub fn run(file: &Path, restarts: usize) -> Result<ComponentReport> {
    let bytes = skillhost::sandbox::read_component_file(file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let cache = tempfile::tempdir().context("a temporary compile cache")?;
    let (first_start, first) = timed(|| -> Result<_> {
        let engine = SandboxEngine::new(Some(cache.path().to_path_buf()))?;
        let component = Arc::new(engine.load(&bytes)?);
        let (_, skills) = started(&engine, &component)?;
        Ok(skills)
    });
    let skills = first?;
    let engine = SandboxEngine::new(Some(cache.path().to_path_buf()))?;
    let (cached_start, loaded) = timed(|| -> Result<_> {
        let component = Arc::new(engine.load(&bytes)?);
        started(&engine, &component)?;
        Ok(component)
    });
    let component = loaded?;
    let mut samples = Vec::with_capacity(restarts);
    for _ in 0..restarts.max(1) {
        let (took, instance) = timed(|| started(&engine, &component));
        drop(instance?);
        samples.push(took);
    }
    let idle = 8;
    let before = resident_kib();
    let mut live = Vec::with_capacity(idle);
    for _ in 0..idle {
        live.push(started(&engine, &component)?);
    }
    let after = resident_kib();
    drop(live);
    Ok(ComponentReport {
        file: file.display().to_string(),
        bytes: bytes.len() as u64,
        first_start,
        cached_start,
        restart: median(&samples),
        restarts: samples.len(),
        idle_kib: after.saturating_sub(before) / idle as u64,
        idle,
        skills,
    })
}

impl ComponentReport {
    /// The report as text.
    pub fn render(&self) -> String {
        let met = if self.restart <= RESTART_TARGET {
            "met"
        } else {
            "not met"
        };
        format!(
            "component {} ({:.1} MB, {} skills listed)\n\
             first start (compile, instantiate, init, first snapshot): {:.1} ms\n\
             cached start (a new engine, the compile cache's entry):   {:.1} ms\n\
             restart after a fault (median of {}, component loaded):  {:.2} ms (target <= {} ms: {met})\n\
             resident memory per idle instance ({} live):             {} KiB\n",
            self.file,
            self.bytes as f64 / 1e6,
            self.skills,
            ms(self.first_start),
            ms(self.cached_start),
            self.restarts,
            ms(self.restart),
            RESTART_TARGET.as_millis(),
            self.idle,
            self.idle_kib,
        )
    }

    /// The report as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "file": self.file,
            "bytes": self.bytes,
            "skills": self.skills,
            "first_start_ms": ms(self.first_start),
            "cached_start_ms": ms(self.cached_start),
            "restart_ms": ms(self.restart),
            "restarts": self.restarts,
            "restart_target_ms": RESTART_TARGET.as_millis() as u64,
            "restart_target_met": self.restart <= RESTART_TARGET,
            "idle_instance_kib": self.idle_kib,
            "idle_instances": self.idle,
        })
    }
}
