//! Compiles every file under `skills/` into the component: a sorted table of
//! (skill folder, relative path, bytes).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo")).join("skills");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut all = Vec::new();
    files(&root, &mut all);
    let mut table = String::from(
        "/// Every bundled file: (skill folder, path in it, bytes).\npub static FILES: &[(&str, &str, &[u8])] = &[\n",
    );
    for path in all {
        let rel = path.strip_prefix(&root).expect("under the root");
        let mut parts = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned());
        let skill = parts.next().expect("a skill folder");
        let inner: Vec<String> = parts.collect();
        let _ = writeln!(
            table,
            "    ({skill:?}, {:?}, include_bytes!({:?})),",
            inner.join("/"),
            path.display().to_string()
        );
    }
    table.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("set by cargo")).join("files.rs");
    std::fs::write(out, table).expect("write the table");
}
