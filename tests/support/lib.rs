//! Shared helpers for skillhost's integration tests: real temporary skill
//! trees, a runtime with a compile cache shared by every test process, and
//! the test guests built from `tests/guests/`.

use skillhost::provider::Caps;
use skillhost::sandbox::Limits;
use skillhost::sandbox::LoadedComponent;
use skillhost::{Provider, ProviderSpec, Runtime};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod http;
pub mod languages;
pub mod mcp;
pub mod nginx;
pub mod registry;
pub mod template;

/// The probe guest (`tests/guests/probe`), built from source by `build.rs`.
pub static PROBE_GUEST: &[u8] = include_bytes!(env!("SKILLHOST_PROBE_GUEST_WASM"));

/// The hostile guest (`tests/guests/hostile`), built from source by `build.rs`.
pub static HOSTILE_GUEST: &[u8] = include_bytes!(env!("SKILLHOST_HOSTILE_GUEST_WASM"));

/// A `skillhost:provider@0.2.0` component written without the SDK
/// (`tests/guests/v0-2`), built from source by `build.rs`.
pub static V0_2_GUEST: &[u8] = include_bytes!(env!("SKILLHOST_V0_2_GUEST_WASM"));

/// A WASI command, not a provider (`tests/guests/command`), built from
/// source by `build.rs`.
pub static COMMAND_GUEST: &[u8] = include_bytes!(env!("SKILLHOST_COMMAND_GUEST_WASM"));

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The superpowers corpus (obra/superpowers, MIT; see its LICENSE and
/// COMMIT), vendored so the tests need nothing outside the repository.
pub fn corpus() -> PathBuf {
    workspace().join("tests/corpus/superpowers/skills")
}

/// The compile cache every test process shares, so components are
/// compiled once per build rather than once per test.
pub fn shared_cache_dir() -> PathBuf {
    workspace().join("target").join("test-compile-cache")
}

/// The compile cache of every `skillhost` process a test runs. Its entries
/// are authenticated under the key [`state_in`] gives each such process, so
/// one process reuses what another compiled; the in-process runtimes above
/// authenticate under the test process's own key, hence a folder of its own.
pub fn process_cache_dir() -> PathBuf {
    workspace().join("target").join("test-compile-cache-cli")
}

/// A private state folder inside `home` for a `skillhost` process
/// (`SKILLHOST_STATE_DIR`), holding the compile-cache key every test shares
/// (see [`share_cache_key`]). Usage, trusted files and approvals stay the
/// test's own.
pub fn state_in(home: &Path) -> PathBuf {
    let state = home.join(".state");
    share_cache_key(&state);
    state
}

/// Puts the one compile-cache key every test shares into the state folder
/// `state` (made private if missing): each `skillhost` run then reuses the
/// components an earlier test compiled into [`process_cache_dir`] instead
/// of compiling them again under a key of its own.
pub fn share_cache_key(state: &Path) {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state)
        .expect("a private state folder");
    let key = state.join("cache-key");
    if !key.exists() {
        let bytes = shared_key();
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&key)
            .expect("the state folder's cache key");
        std::io::Write::write_all(&mut file, &bytes).expect("the cache key is written");
    }
}

/// The key under `target/`, made once by whichever test comes first.
fn shared_key() -> Vec<u8> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = workspace().join("target/test-state");
    std::fs::create_dir_all(&dir).expect("target/test-state");
    let path = dir.join("cache-key");
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() == 32
    {
        return bytes;
    }
    let mut key = [0u8; 32];
    std::io::Read::read_exact(
        &mut std::fs::File::open("/dev/urandom").expect("/dev/urandom"),
        &mut key,
    )
    .expect("32 random bytes");
    let tmp = dir.join(format!("cache-key.{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .expect("a new key file");
    std::io::Write::write_all(&mut file, &key).expect("the new key is written");
    // A hard link never replaces a key another test made meanwhile.
    let _ = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    std::fs::read(&path).expect("the shared key")
}

/// A runtime using the shared compile cache.
pub fn runtime() -> Runtime {
    Runtime::with_cache_dir(Some(shared_cache_dir())).expect("the sandbox engine starts")
}

pub use skillhost::paths::mkfifo;

/// A temporary folder holding the given files (`path`, bytes); parent
/// folders are created as needed.
pub fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, bytes) in files {
        write(dir.path(), path, bytes);
    }
    dir
}

/// Writes `bytes` at `root/path`, creating parents.
pub fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent).expect("create parent folders");
    }
    std::fs::write(&full, bytes).expect("write a test file");
}

/// A minimal valid SKILL.md.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nBody of {name}.\n")
}

/// A provider running `component` over `roots` with the given settings and limits.
pub fn provider_of(
    runtime: &Runtime,
    id: &str,
    component: Arc<LoadedComponent>,
    roots: Vec<PathBuf>,
    settings: &[(&str, &str)],
    limits: Limits,
) -> Arc<Provider> {
    runtime.provider(ProviderSpec {
        id: id.to_string(),
        scope: skillhost::Scope::User,
        component,
        roots,
        settings: settings
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        origins: Vec::new(),
        virtual_roots: Vec::new(),
        namespace: None,
        poll: None,
        limits,
        caps: Caps::default(),
    })
}

/// What this process holds now: threads, open descriptors and resident
/// bytes, as Linux names them in `/proc/self`. Hostile tests and the soak
/// and sandbox benches compare these before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessUsage {
    /// Threads (`/proc/self/task`).
    pub threads: usize,
    /// Open descriptors (`/proc/self/fd`).
    pub descriptors: usize,
    /// Resident memory in bytes (`/proc/self/statm`).
    pub resident: u64,
}

impl ProcessUsage {
    /// The figures now.
    pub fn now() -> ProcessUsage {
        let count = |dir: &str| std::fs::read_dir(dir).map_or(0, |d| d.count());
        let pages: u64 = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0);
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
        ProcessUsage {
            threads: count("/proc/self/task"),
            descriptors: count("/proc/self/fd"),
            resident: pages * page,
        }
    }

    /// Resident memory in KiB.
    pub fn resident_kib(&self) -> u64 {
        self.resident / 1024
    }
}

/// Log output captured in memory, as a `tracing_subscriber` writer: tests
/// read what the host logged.
#[derive(Clone, Default)]
pub struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
