//! `skillhost add REF`: a provider component from an OCI registry, pulled,
//! shown as `inspect` shows it, and once confirmed kept in the
//! content-addressed store and written to `skillhost.toml` pinned — with
//! only the roots and origins the user passes, never what the component
//! asks for on its own. The file is then trusted and the component
//! precompiled, so it runs with no network.

use super::oci::{self, Checked};
use crate::args::{RegistryArgs, StateArgs};
use crate::output::print_json;
use anyhow::{Context as _, Result, bail};
use skillhost::Runtime;
use skillhost::config::Config;
use skillhost_oci::ComponentRef;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `add` was asked.
pub struct Args<'a> {
    /// `--config`.
    pub config: Option<&'a Path>,
    /// The reference.
    pub reference: &'a str,
    /// `--root`s granted.
    pub roots: &'a [PathBuf],
    /// `--origin`s granted.
    pub origins: &'a [String],
    /// `--id`.
    pub id: Option<&'a str>,
    /// `--yes`.
    pub yes: bool,
    /// How to reach the registry.
    pub registry: &'a RegistryArgs,
    /// The state folder.
    pub state: &'a StateArgs,
    /// `--json`: the outcome on stdout as JSON, the report on stderr.
    pub json: bool,
}

pub fn run(args: Args<'_>) -> Result<ExitCode> {
    let reference = ComponentRef::parse(args.reference)?;
    let path = oci::config_path(args.config)?;
    let existing = existing(&path)?;
    let id = match args.id {
        Some(id) => id.to_string(),
        None => default_id(&reference),
    };
    if !valid_id(&id) {
        bail!(
            "--id {:?}: an id is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (it names the provider in every diagnostic and skill source)",
            id.chars().take(80).collect::<String>()
        );
    }
    if let Some(config) = &existing
        && config.providers.iter().any(|p| p.id == id)
    {
        bail!(
            "{}: a provider {id:?} is configured already; pass --id to name this one",
            path.display()
        );
    }
    let (registry, credentials) = oci::client(&reference, args.registry)?;
    let pulled = oci::block_on(registry.pull(&reference, &credentials))??;
    let pinned = reference.pinned(pulled.resolved.digest.clone());
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let checked = oci::check(&runtime, &pinned.to_string(), &pulled.component)?;
    let (state, store) = oci::state(args.state)?;
    let stored = store.path(&pulled.resolved.manifest.layer);
    let table = table(&id, &pinned, &stored, &checked, &args)?;
    let report = format!(
        "{}\nto be added to {}:\n\n{table}",
        super::inspect::report(&pinned.to_string(), &checked.description, &checked.declared),
        path.display()
    );
    // With --json, stdout carries only the outcome; the person answering
    // the question still sees what they are asked to add.
    if args.json {
        eprint!("{report}");
    } else {
        print!("{report}");
    }
    let outcome = |written: bool| {
        serde_json::json!({
            "id": id,
            "reference": pinned.to_string(),
            "config": path,
            "stored": stored,
            "sha256": checked.description.sha256,
            "contract": checked.description.contract.to_string(),
            "manifest": match &checked.declared {
                Ok(Some(m)) => m.to_json(),
                Ok(None) => serde_json::Value::Null,
                Err(e) => serde_json::json!({"error": e}),
            },
            "table": table,
            "written": written,
        })
    };
    if !oci::confirm(&format!("Add {id} to {}?", path.display()), args.yes)? {
        if args.json {
            print_json(&outcome(false))?;
        }
        return Ok(ExitCode::FAILURE);
    }
    store.put(&pulled.component)?;
    let before = match &existing {
        Some(_) => std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?,
        None => String::new(),
    };
    let separator = if before.is_empty() || before.ends_with("\n\n") {
        ""
    } else if before.ends_with('\n') {
        "\n"
    } else {
        "\n\n"
    };
    oci::write_config(&path, &format!("{before}{separator}{table}"), &state)?;
    // Compiled now, into the compile cache, so its first start is fast.
    runtime
        .engine()
        .load(&pulled.component)
        .context("cannot precompile the component")?;
    if args.json {
        print_json(&outcome(true))?;
    } else {
        println!("added {id} ({pinned}), trusted {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The configuration there now, if there is a file.
fn existing(path: &Path) -> Result<Option<Config>> {
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(Config::load(path)?))
}

/// The repository's last part, as an id.
fn default_id(reference: &ComponentRef) -> String {
    reference
        .repository
        .rsplit('/')
        .next()
        .unwrap_or("provider")
        .to_string()
}

/// Whether `id` can name a provider wherever ids are shown.
fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The `[[provider]]` table: the stored file pinned, where it came from,
/// and the grants passed on the command line.
fn table(
    id: &str,
    pinned: &ComponentRef,
    stored: &Path,
    checked: &Checked,
    args: &Args<'_>,
) -> Result<String> {
    let Some(file) = stored.to_str() else {
        bail!("{}: the path is not UTF-8", stored.display());
    };
    let q = oci::quoted;
    let list = |items: Vec<String>| items.iter().map(|i| q(i)).collect::<Vec<_>>().join(", ");
    let roots: Vec<String> = args
        .roots
        .iter()
        .map(|r| {
            let r = skillhost::paths::absolute(r);
            r.to_str()
                .map(str::to_string)
                .with_context(|| format!("{}: the path is not UTF-8", r.display()))
        })
        .collect::<Result<_>>()?;
    let mut out = format!(
        "[[provider]]\nid = {}\noci = {}\nwasm = {}\nsha256 = \"{}\"\n",
        q(id),
        q(&pinned.to_string()),
        q(file),
        checked.description.sha256
    );
    if !roots.is_empty() {
        out.push_str(&format!("roots = [{}]\n", list(roots)));
    }
    if !args.origins.is_empty() {
        out.push_str(&format!("origins = [{}]\n", list(args.origins.to_vec())));
    }
    Ok(out)
}
