//! `skillhost inspect`: what a provider component is, read from its type,
//! what it declares it wants (its manifest, asked of an instance granted
//! nothing), and the `skillhost.toml` lines that grant it, pinned to its
//! SHA-256.

use crate::output::print_json;
use anyhow::{Context as _, Result, bail};
use serde_json::json;
use skillhost::Runtime;
use skillhost::paths::absolute;
use skillhost::sandbox::describe::{Description, Granted, Item, denial, describe};
use skillhost::sandbox::{Manifest, manifest, read_component_file};
use skillhost::text::clean;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What an import gets from the sandbox.
enum Access {
    /// Linked and usable as the provider asks.
    Granted,
    /// Usable only once `skillhost.toml` grants the key named.
    Needs(&'static str, String),
    /// Denied whatever is granted.
    Denied(String),
}

fn access(import: &str) -> Access {
    // Everything a file can grant: what is still denied is denied always.
    let everything = Granted {
        roots: vec![PathBuf::from("/")],
        origins: vec!["https://example.com:443".to_string()],
    };
    if let Some(reason) = denial(import, &everything) {
        return Access::Denied(reason);
    }
    match denial(import, &Granted::default()) {
        Some(reason) if import.starts_with("wasi:http/") => Access::Needs("origins", reason),
        Some(reason) => Access::Needs("roots", reason),
        None => Access::Granted,
    }
}

pub fn run(file: &Path, json: bool) -> Result<ExitCode> {
    let path = absolute(file);
    let bytes =
        read_component_file(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let description =
        describe(runtime.engine(), &bytes, None).with_context(|| format!("{}", path.display()))?;
    let grant = grant(&path, &description)?;
    let declared = declared(&runtime, &bytes, &description);
    if json {
        let mut out = as_json(&path, &description, &grant);
        out["manifest"] = match &declared {
            Ok(Some(m)) => m.to_json(),
            Ok(None) => serde_json::Value::Null,
            Err(e) => json!({"error": e}),
        };
        print_json(&out)?;
    } else {
        crate::output::print_text(&as_text(&path, &description, &declared, &grant))?;
    }
    Ok(match description.link_error {
        None => ExitCode::SUCCESS,
        Some(_) => ExitCode::FAILURE,
    })
}

/// The manifest the component declares (`None`: a 0.1.0 component, which
/// cannot), or why it could not be read.
pub(super) fn declared(
    runtime: &Runtime,
    bytes: &[u8],
    description: &Description,
) -> Result<Option<Manifest>, String> {
    if let Some(e) = &description.link_error {
        return Err(format!("it does not link: {e}"));
    }
    let component = runtime.engine().load(bytes).map_err(|e| e.to_string())?;
    manifest::manifest(runtime.engine(), &component).map_err(|f| f.to_string())
}

/// The `[[provider]]` table granting the component: its file, its pin, and
/// an empty `roots` or `origins` for each kind of access it would use.
fn grant(path: &Path, d: &Description) -> Result<String> {
    let Some(file) = path.to_str() else {
        bail!(
            "{}: the path is not UTF-8, so skillhost.toml cannot name it",
            path.display()
        );
    };
    let id: String = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("provider")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    // A JSON string is a valid TOML basic string.
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    let mut out = format!(
        "[[provider]]\nid = {}\nwasm = {}\nsha256 = \"{}\"\n",
        quoted(&id),
        quoted(file),
        d.sha256
    );
    let needs = |key: &str| {
        d.imports
            .iter()
            .any(|i| matches!(access(&i.name), Access::Needs(k, _) if k == key))
    };
    if needs("roots") {
        out.push_str("roots = []    # the folders it may read (read-only)\n");
    }
    if needs("origins") {
        out.push_str("origins = []  # the HTTP origins it may reach, \"https://host:443\"\n");
    }
    Ok(out)
}

/// `  name  f, g` (the functions of an interface; nothing for a types-only one).
fn line(item: &Item) -> String {
    match item.functions.is_empty() {
        true => format!("  {}", clean(&item.name)),
        false => format!(
            "  {}  {}",
            clean(&item.name),
            clean(&item.functions.join(", "))
        ),
    }
}

fn as_text(
    path: &Path,
    d: &Description,
    declared: &Result<Option<Manifest>, String>,
    grant: &str,
) -> String {
    let mut out = report(&path.display().to_string(), d, declared);
    out.push_str(&format!("\ngrant it in skillhost.toml:\n\n{grant}"));
    out
}

/// What `inspect` shows of a component named `label` (its file, or the
/// registry reference it came from), without the table granting it.
pub(super) fn report(
    label: &str,
    d: &Description,
    declared: &Result<Option<Manifest>, String>,
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "component  {}", clean(label));
    let _ = writeln!(out, "contract   {}", d.contract);
    let _ = writeln!(out, "size       {} bytes", d.size);
    let _ = writeln!(out, "sha256     {}", d.sha256);
    if let Some(e) = &d.link_error {
        let _ = writeln!(out, "refused    it does not link: {}", clean(e));
    }
    match declared {
        Ok(Some(m)) => {
            let _ = writeln!(out, "\ndeclares (its manifest: a request, not a grant)");
            for line in m.lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        Ok(None) => {
            let _ = writeln!(out, "\ndeclares   nothing ({} has no manifest)", d.contract);
        }
        Err(e) => {
            let _ = writeln!(out, "\ndeclares   unknown: {}", clean(e));
        }
    }
    let _ = writeln!(out, "\nimports ({})", d.imports.len());
    for import in &d.imports {
        let _ = writeln!(out, "{}", line(import));
        match access(&import.name) {
            Access::Granted => {}
            Access::Needs(key, reason) => {
                let _ = writeln!(out, "    needs `{key}`: {reason}");
            }
            Access::Denied(reason) => {
                let _ = writeln!(out, "    denied: {reason}");
            }
        }
    }
    let _ = writeln!(out, "\nexports ({})", d.exports.len());
    for export in &d.exports {
        let _ = writeln!(out, "{}", line(export));
    }
    out
}

fn as_json(path: &Path, d: &Description, grant: &str) -> serde_json::Value {
    let imports: Vec<_> = d
        .imports
        .iter()
        .map(|i| {
            let (denied, needs) = match access(&i.name) {
                Access::Granted => (None, None),
                Access::Needs(key, reason) => (None, Some(json!({"key": key, "reason": reason}))),
                Access::Denied(reason) => (Some(reason), None),
            };
            json!({"name": i.name, "functions": i.functions, "denied": denied, "needs": needs})
        })
        .collect();
    let exports: Vec<_> = d
        .exports
        .iter()
        .map(|e| json!({"name": e.name, "functions": e.functions}))
        .collect();
    json!({
        "path": path,
        "contract": d.contract.name(),
        "version": d.contract.version,
        "size": d.size,
        "sha256": d.sha256,
        "imports": imports,
        "exports": exports,
        "link_error": d.link_error,
        "grant": grant,
    })
}
