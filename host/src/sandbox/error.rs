//! What setting up the sandbox or loading a component can fail with. The
//! sandbox reports its own errors; the crate's [`crate::Error`] wraps them,
//! so nothing here names a layer above.

/// A failure of the sandbox itself, before any provider call runs.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// wasmtime could not be set up.
    #[error("wasmtime engine: {0}")]
    Engine(String),
    /// A component could not be compiled or does not fit the contract.
    #[error("{0}")]
    Component(String),
}

impl SandboxError {
    pub(crate) fn engine(e: impl std::fmt::Display) -> Self {
        SandboxError::Engine(e.to_string())
    }
}
