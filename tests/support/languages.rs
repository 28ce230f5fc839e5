//! Providers in other languages, built from source with their own
//! toolchains the way their READMEs say: `examples/provider-python`
//! (componentize-py), `examples/provider-js` (componentize-js), and the
//! Python test guest `tests/guests/python`. `scripts/ensure-lang-tools`
//! installs the pinned toolchains into `.tools/`; `.ci/run` calls it.
//!
//! A component is rebuilt only when its sources or the contract change:
//! each is kept in `target/lang-components` under a digest of what it is
//! built from.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The contract every example is built against.
pub fn contract_wit() -> PathBuf {
    super::workspace().join("wit/v0.3.0")
}

/// The Python example provider (two skills held in memory).
pub fn python_example() -> PathBuf {
    python(
        "provider-python",
        &super::workspace().join("examples/provider-python"),
        "app",
    )
}

/// The Python example changed as its author's next version might be: the
/// same skills, and a manifest that asks for `origin` as well (what
/// `update` must put in words before re-pinning).
pub fn python_example_asking_for(origin: &str) -> PathBuf {
    let example = super::workspace().join("examples/provider-python/app.py");
    let text = std::fs::read_to_string(&example).expect("the Python example");
    let before = r#"ProviderManifest("Two skills held in memory", Need.NONE, [], [])"#;
    assert!(
        text.contains(before),
        "{} no longer declares {before}: update this helper with it",
        example.display()
    );
    let after = format!(
        r#"ProviderManifest("Two skills held in memory", Need.NONE, [{}], [])"#,
        serde_json::Value::from(origin)
    );
    let digest = &skillhost_skill::digest::sha256_hex(origin.as_bytes())[..12];
    let dir = super::workspace().join(format!("target/lang-sources/provider-python-{digest}"));
    std::fs::create_dir_all(&dir).expect("a folder for the changed source");
    std::fs::write(dir.join("app.py"), text.replace(before, &after))
        .expect("the changed source is written");
    python(&format!("provider-python-{digest}"), &dir, "app")
}

/// The Python test guest that misbehaves on demand (`tests/guests/python`).
pub fn python_hostile() -> PathBuf {
    python(
        "python-hostile",
        &super::workspace().join("tests/guests/python"),
        "hostile",
    )
}

/// The JavaScript example provider (skills fetched over `wasi:http`).
pub fn js_example() -> PathBuf {
    let dir = super::workspace().join("examples/provider-js");
    let source = dir.join("provider.js");
    built("provider-js", &[&source, &dir.join("build.mjs")], |out| {
        let node_dir = tool(".tools/componentize-js");
        let mut command = Command::new("node");
        command
            .arg(node_dir.join("build.mjs"))
            .arg(&source)
            .arg(contract_wit())
            .arg(out);
        command
    })
}

fn python(name: &str, dir: &Path, module: &str) -> PathBuf {
    let source = dir.join(format!("{module}.py"));
    built(name, &[&source], |out| {
        let mut command = Command::new(tool(".tools/componentize-py/bin/componentize-py"));
        command
            .arg("-d")
            .arg(contract_wit())
            .args(["-w", "skill-provider", "componentize", "-p"])
            .arg(dir)
            .arg(module)
            .arg("-o")
            .arg(out);
        command
    })
}

/// A tool from `.tools/`, or a clear failure saying how to get it.
fn tool(relative: &str) -> PathBuf {
    let path = super::workspace().join(relative);
    assert!(
        path.exists(),
        "{} is missing: run scripts/ensure-lang-tools first (CI does, see .ci/run)",
        path.display()
    );
    path
}

/// The component `name` built from `sources` (and the contract) by
/// `command(out)`, once per content.
fn built(name: &str, sources: &[&Path], command: impl FnOnce(&Path) -> Command) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(path) = built.get(name) {
        return path.clone();
    }
    let mut hash = Sha256::new();
    for source in sources {
        hash.update(std::fs::read(source).expect("a language example's source"));
    }
    for entry in std::fs::read_dir(contract_wit()).expect("the contract") {
        hash.update(std::fs::read(entry.expect("a WIT file").path()).expect("a WIT file"));
    }
    let digest: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = super::workspace().join("target/lang-components");
    std::fs::create_dir_all(&dir).expect("the components folder");
    let path = dir.join(format!("{name}-{digest}.wasm"));
    // Test binaries run side by side, and a toolchain's output is not
    // byte-identical from run to run: without this lock a second build
    // could replace a component another process has already pinned by
    // digest. The lock is held until the component is in place.
    let lock = std::fs::File::create(dir.join(format!("{name}-{digest}.lock")))
        .expect("the build lock file");
    lock.lock().expect("the build lock");
    if !path.is_file() {
        let partial = dir.join(format!("{name}-{digest}.wasm.{}", std::process::id()));
        let output = command(&partial).output().expect("the toolchain runs");
        assert!(
            output.status.success() && partial.is_file(),
            "building {name} failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::rename(&partial, &path).expect("the built component is kept");
    }
    drop(lock);
    built.insert(name.to_string(), path.clone());
    path
}
