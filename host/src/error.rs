//! The library's error type.

use crate::sandbox::{Fault, SandboxError};
use std::path::PathBuf;

/// What a provider said went wrong, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderErrorKind {
    /// No such skill or resource.
    NotFound,
    /// The skill's file now declares another name: the catalog was stale.
    NameMismatch,
    /// The source exists but is malformed.
    Invalid,
    /// Reading the source failed.
    Io,
    /// The provider does not support the operation.
    Unsupported,
}

/// What follows "no skill named X": the near names, or how many exist.
fn unknown_hint(near: &[String], count: usize) -> String {
    match (near.is_empty(), count) {
        (_, 0) => "; no skill is available".to_string(),
        (true, n) => format!("; none has a similar name ({n} skill(s) available)"),
        (false, n) => format!(
            "; did you mean {}? ({n} skill(s) available)",
            near.join(", ")
        ),
    }
}

/// Everything the skillhost library can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// wasmtime could not be set up.
    #[error("wasmtime engine: {0}")]
    Engine(String),
    /// A component could not be compiled or does not fit the contract.
    #[error("{0}")]
    Component(String),
    /// No skill has that name (for this caller, now).
    #[error("no skill named {name:?}{}", unknown_hint(near, *count))]
    UnknownSkill {
        /// The name asked for.
        name: String,
        /// At most five names close to it, closest first (see
        /// [`crate::model::near`]), never the whole catalog.
        near: Vec<String>,
        /// How many skills the caller could have asked for.
        count: usize,
    },
    /// A conditional skill that no touched file has activated yet.
    #[error(
        "skill {skill:?} is not active yet: it becomes available once a file matching {} is touched",
        paths.join(" or ")
    )]
    NotActive {
        /// The skill's name.
        skill: String,
        /// The `paths` patterns that activate it.
        paths: Vec<String>,
    },
    /// The skill exists but may not be invoked this way.
    #[error("skill {skill:?} refused: {reason}")]
    Refused {
        /// The skill's name.
        skill: String,
        /// Why.
        reason: String,
    },
    /// A provider call failed inside the sandbox.
    #[error("provider {provider} failed ({fault})")]
    Fault {
        /// The provider's id.
        provider: String,
        /// What happened.
        fault: Fault,
    },
    /// A provider answered with an error.
    #[error("provider {provider}: {message}")]
    Provider {
        /// The provider's id.
        provider: String,
        /// The kind of error.
        kind: ProviderErrorKind,
        /// The provider's explanation.
        message: String,
    },
    /// A provider returned data that breaks the contract.
    #[error("provider {provider} returned invalid data: {message}")]
    Boundary {
        /// The provider's id.
        provider: String,
        /// What was wrong.
        message: String,
    },
    /// The configuration file is wrong.
    #[error("{}:{line}: {key}{}{message}", path.display(), if key.is_empty() { "" } else { ": " })]
    Config {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The key concerned (empty when the file as a whole is wrong).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A provider with this id is already registered.
    #[error(
        "a provider with the id {id:?} is already registered; give one of them another id or label"
    )]
    DuplicateProvider {
        /// The id.
        id: String,
    },
    /// A remote source is misconfigured.
    #[error("remote {url}: {message}")]
    Remote {
        /// The URL as given.
        url: String,
        /// What is wrong.
        message: String,
    },
    /// A mirror could not be written.
    #[error("mirror: {0}")]
    Mirror(String),
    /// A host file operation failed.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// The OS error (in the message, not a separate cause, so a chain
        /// of causes does not print it twice).
        error: std::io::Error,
    },
}

impl From<SandboxError> for Error {
    fn from(e: SandboxError) -> Self {
        match e {
            SandboxError::Engine(m) => Error::Engine(m),
            SandboxError::Component(m) => Error::Component(m),
        }
    }
}
