//! What `add`, `update` and `publish` share: the registry client and its
//! credentials, the component store, the check that bytes are a provider
//! component, confirmation, and writing `skillhost.toml` so that a file
//! that would not load is never left behind.

use crate::args::{RegistryArgs, StateArgs};
use anyhow::{Context as _, Result, bail};
use skillhost::Runtime;
use skillhost::config::Config;
use skillhost::sandbox::Manifest;
use skillhost::sandbox::describe::{Description, describe};
use skillhost_oci::{ComponentRef, Credentials, Options, Registry, Store};
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The registry client for `reference`, with its credentials: a token
/// file, else the Docker config's entry for the registry, else none.
pub fn client(reference: &ComponentRef, args: &RegistryArgs) -> Result<(Registry, Credentials)> {
    let options = Options {
        plain_http: args.plain_http,
        deadline: Duration::from_secs(args.registry_timeout),
        ..Options::default()
    };
    let registry = Registry::new(reference, options)?;
    let docker = |file: &Path| {
        let text = credentials_file(file)?;
        Ok::<_, anyhow::Error>(skillhost_oci::from_docker_config(
            file,
            &text,
            &reference.registry,
        )?)
    };
    let credentials = match (&args.token_file, &args.docker_config) {
        (Some(file), _) => skillhost_oci::from_token_file(file, &credentials_file(file)?)?,
        (None, Some(file)) => docker(file)?,
        (None, None) => match std::env::home_dir().map(|h| h.join(".docker/config.json")) {
            Some(file) if file.is_file() => docker(&file)?,
            _ => Credentials::Anonymous,
        },
    };
    Ok((registry, credentials))
}

/// Largest credentials file read.
const MAX_CREDENTIALS_BYTES: u64 = 1024 * 1024;

/// A credentials file's text. A FIFO or a device named as one is refused
/// rather than waited on, and its content is never part of an error.
fn credentials_file(path: &Path) -> Result<String> {
    let bytes = skillhost::paths::read_regular(path, MAX_CREDENTIALS_BYTES)
        .with_context(|| format!("credentials file {}: cannot read", path.display()))?;
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("credentials file {}: not UTF-8 text", path.display()))
}

/// A runtime for the registry client's calls.
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    Ok(runtime.block_on(work))
}

/// The state folder (`--state`, else the default) and its component store.
pub fn state(args: &StateArgs) -> Result<(PathBuf, Store)> {
    let dir = match &args.state {
        Some(dir) => dir.clone(),
        None => skillhost::paths::required_state_dir()?,
    };
    skillhost::paths::private_dir(&dir)
        .with_context(|| format!("state folder {}", dir.display()))?;
    let store = Store::new(dir.join("components"));
    Ok((dir, store))
}

/// A provider component, as the host sees it.
pub struct Checked {
    /// Its type, imports and exports.
    pub description: Description,
    /// What it declares it wants (`None`: a 0.1.0 component).
    pub declared: Result<Option<Manifest>, String>,
}

/// Checks that `bytes` (from `label`) are a provider component this host
/// can run: a WASI command or any other component is refused.
pub fn check(runtime: &Runtime, label: &str, bytes: &[u8]) -> Result<Checked> {
    if !bytes.starts_with(b"\0asm") {
        bail!("{label} is not a provider component: it is not WebAssembly (no \\0asm header)");
    }
    let description = describe(runtime.engine(), bytes, None)
        .with_context(|| format!("{label} is not a provider component"))?;
    if let Some(e) = &description.link_error {
        bail!(
            "{label} is not a provider component this host can run: it does not link: {}",
            skillhost::text::clean(e)
        );
    }
    let declared = super::inspect::declared(runtime, bytes, &description);
    Ok(Checked {
        description,
        declared,
    })
}

/// Asks `question` on the terminal; without one, says how to go on and
/// answers no.
pub fn confirm(question: &str, yes: bool) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        eprintln!("nothing written: there is no terminal to confirm on (pass --yes to write)");
        return Ok(false);
    }
    eprint!("{question} [y/N] ");
    std::io::stderr().flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

/// The configuration file written to: `--config`, else `skillhost.toml`
/// in the current folder. It must be a regular file or not exist yet: a
/// symbolic link planted there would be replaced by a copy of what it
/// points to (the rename replaces the link), and anything else cannot be
/// written safely, so both are refused before anything is fetched.
pub fn config_path(config: Option<&Path>) -> Result<PathBuf> {
    let path = match config {
        Some(path) => skillhost::paths::absolute(path),
        None => crate::context::cwd()?.join(skillhost::config::FILE_NAME),
    };
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => bail!(
            "{} is a symbolic link: only a regular file is rewritten (pass --config with the file it points to)",
            path.display()
        ),
        Ok(meta) if !meta.is_file() => bail!("{} is not a regular file", path.display()),
        _ => Ok(path),
    }
}

/// Replaces `path` with `text` once `text` loads as a configuration: it is
/// written beside it and renamed over it, so a reader sees the old file or
/// the new one, and a file that would not load is never left. The new file
/// is trusted as it now is.
pub fn write_config(path: &Path, text: &str, state: &Path) -> Result<Config> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::Builder::new()
        .prefix(".skillhost.toml.")
        .tempfile_in(folder)
        .with_context(|| format!("cannot write beside {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    file.as_file().sync_all()?;
    Config::load(file.path()).context("the configuration would not load; nothing written")?;
    file.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    let config = Config::load(path)?;
    skillhost::config::trust::TrustStore::in_dir(state).trust(&config)?;
    Ok(config)
}

/// A string as a TOML basic string (a JSON string is one).
pub fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
