//! The versions of the provider contract this host runs, and which of them
//! a component exports. Loading a component and describing one both ask
//! this; it asks nothing of either.

use super::error::SandboxError as Error;

/// The WIT package of the provider contract.
pub const PACKAGE: &str = "skillhost:provider";

/// The interface a provider exports, without package or version.
pub const PROVIDER_INTERFACE: &str = "provider";

/// The contract versions this host runs, oldest first.
pub const SUPPORTED_VERSIONS: &[&str] = &["0.1.0", "0.2.0", "0.3.0"];

/// A version of the provider contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    /// The package's version (`0.1.0`, `0.2.0`, `0.3.0`).
    pub version: String,
}

impl Contract {
    /// The contract's full name: `skillhost:provider@0.1.0`.
    pub fn name(&self) -> String {
        format!("{PACKAGE}@{}", self.version)
    }
}

impl std::fmt::Display for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{PACKAGE}@{}", self.version)
    }
}

/// `wasi:cli/environment@0.2.12` → (`wasi:cli/environment`, `0.2.12`).
pub fn split_version(name: &str) -> (&str, Option<&str>) {
    match name.rsplit_once('@') {
        Some((interface, version)) => (interface, Some(version)),
        None => (name, None),
    }
}

/// The supported contract among export names, or an error naming what was
/// found and what is supported.
pub fn contract_of<'a>(exports: impl IntoIterator<Item = &'a str>) -> Result<Contract, Error> {
    let provider = format!("{PACKAGE}/{PROVIDER_INTERFACE}");
    let mut found = Vec::new();
    let mut command = false;
    for name in exports {
        let (interface, version) = split_version(name);
        command |= interface == "wasi:cli/run";
        if interface != provider {
            continue;
        }
        match version {
            Some(v) if SUPPORTED_VERSIONS.contains(&v) => {
                return Ok(Contract {
                    version: v.to_string(),
                });
            }
            _ => found.push(name.to_string()),
        }
    }
    let supported = supported_list();
    Err(Error::Component(if found.is_empty() && command {
        // Said apart: a command is what `cargo build --target wasm32-wasip2`
        // gives for a binary crate, the most likely mistake.
        format!(
            "not a skill provider: it is a WASI command (it exports wasi:cli/run, run by `wasmtime run`), not a {provider} interface; this host runs {supported}"
        )
    } else if found.is_empty() {
        format!(
            "not a skill provider: it exports no {provider} interface; this host runs {supported}"
        )
    } else {
        format!(
            "it exports {}, a contract version this host does not run; supported: {supported}",
            found.join(", ")
        )
    }))
}

/// `skillhost:provider@0.1.0` (and any later versions), comma-separated.
pub fn supported_list() -> String {
    SUPPORTED_VERSIONS
        .iter()
        .map(|v| format!("{PACKAGE}@{v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
