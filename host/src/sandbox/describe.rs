//! What a provider component is, read from its type without running it:
//! the contract version it exports, what it imports and exports, which of
//! its imports the sandbox will deny under a given grant, and its size and
//! SHA-256. `skillhost inspect` and the conformance kit both start here.
//!
//! Nothing of the component runs: it is compiled (through the compile
//! cache), its component type is read with wasmtime's introspection, and
//! it is pre-linked against the host's linker to learn whether it would
//! load at all.

use super::engine::SandboxEngine;
use super::error::SandboxError as Error;
use std::path::PathBuf;
use wasmtime::Engine;
use wasmtime::component::types::{ComponentInstance, ComponentItem};

pub use super::versions::{
    Contract, PACKAGE, PROVIDER_INTERFACE, SUPPORTED_VERSIONS, contract_of, split_version,
    supported_list,
};

/// One import or export of a component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Its name as the component spells it (`wasi:cli/environment@0.2.12`).
    pub name: String,
    /// The functions of an interface, in the component's order (empty for
    /// anything else).
    pub functions: Vec<String>,
}

/// An import the sandbox links but will not let do anything under the
/// grant described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denied {
    /// The import's name, as the component spells it.
    pub import: String,
    /// What the provider gets instead, in a sentence.
    pub reason: String,
}

/// What a provider would be granted, as far as its imports are concerned:
/// with no roots it sees no files, with no origins it reaches no server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Granted {
    /// Folders granted read-only.
    pub roots: Vec<PathBuf>,
    /// HTTP origins it may reach (`scheme://host:port`).
    pub origins: Vec<String>,
}

/// A provider component, described.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    /// Bytes in the component file.
    pub size: u64,
    /// The 64 lowercase hex digits of the component's SHA-256 (what a
    /// `sha256` pin in `skillhost.toml` holds).
    pub sha256: String,
    /// The contract version it exports.
    pub contract: Contract,
    /// What it imports, in the component's order.
    pub imports: Vec<Item>,
    /// What it exports, in the component's order.
    pub exports: Vec<Item>,
    /// Its imports the sandbox denies under the grant described.
    pub denied: Vec<Denied>,
    /// Why the host cannot link it (an import the host does not provide, a
    /// signature that differs from the contract's), if it cannot: such a
    /// component is refused when a provider is started from it.
    pub link_error: Option<String>,
}

/// Describes the component `bytes` as it would run on `engine` under
/// `granted` (none: granted nothing). Fails when the bytes are not a
/// component, or when it exports no version of the provider contract this
/// host runs (the error names the versions supported).
pub fn describe(
    engine: &SandboxEngine,
    bytes: &[u8],
    granted: Option<&Granted>,
) -> Result<Description, Error> {
    let (component, _) = engine.compile(bytes)?;
    let ty = component.component_type();
    let wasmtime = engine.engine();
    let imports: Vec<Item> = ty
        .imports(wasmtime)
        .map(|(name, item)| described(wasmtime, name, &item.ty))
        .collect();
    let exports: Vec<Item> = ty
        .exports(wasmtime)
        .map(|(name, item)| described(wasmtime, name, &item.ty))
        .collect();
    let contract = contract_of(exports.iter().map(|e| e.name.as_str()))?;
    let nothing = Granted::default();
    let granted = granted.unwrap_or(&nothing);
    let denied = imports
        .iter()
        .filter_map(|i| {
            denial(&i.name, granted).map(|reason| Denied {
                import: i.name.clone(),
                reason,
            })
        })
        .collect();
    Ok(Description {
        size: bytes.len() as u64,
        sha256: skillhost_skill::digest::sha256_hex(bytes),
        contract,
        imports,
        exports,
        denied,
        link_error: engine.link(&component).err(),
    })
}

fn described(engine: &Engine, name: &str, item: &ComponentItem) -> Item {
    Item {
        name: name.to_string(),
        functions: match item {
            ComponentItem::ComponentInstance(instance) => functions(engine, instance),
            _ => Vec::new(),
        },
    }
}

fn functions(engine: &Engine, instance: &ComponentInstance) -> Vec<String> {
    instance
        .exports(engine)
        .filter(|(_, e)| matches!(e.ty, ComponentItem::ComponentFunc(_)))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// Why the sandbox denies import `name` under `granted`, if it does. These
/// follow the linker (`imports/denied.rs`, the WASI context in
/// `instance.rs`, the origin check in `imports/http.rs`): a rule changed
/// there changes here.
pub fn denial(name: &str, granted: &Granted) -> Option<String> {
    let (interface, _) = split_version(name);
    let reason = match interface {
        "wasi:cli/environment" => "no environment variables are granted: it reads none",
        "wasi:cli/stdout" => "writing to stdout is not granted: it is discarded and noted",
        "wasi:http/outgoing-handler" if granted.origins.is_empty() => {
            "no HTTP origin is granted: every request is refused"
        }
        "wasi:filesystem/preopens" if granted.roots.is_empty() => {
            "no folder is granted: it sees no preopened directory"
        }
        "skillhost:provider/files" if granted.roots.is_empty() => {
            "no folder is granted: every read is refused"
        }
        i if i.starts_with("wasi:sockets/") => {
            "no network is granted: every socket and name lookup is refused"
        }
        _ => return None,
    };
    Some(reason.to_string())
}

#[cfg(test)]
#[path = "describe_tests.rs"]
mod tests;
