//! Why a registry operation or the store failed. Each error names the
//! reference (or file) and the reason; none carries a credential.

use std::path::PathBuf;

/// A failed registry or store operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The reference is not `oci://REGISTRY/REPOSITORY:TAG` or `…@sha256:…`.
    #[error("{reference:?} is not a component reference: {reason}")]
    Reference {
        /// The reference as given.
        reference: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Plain HTTP was asked for a registry that is not on loopback.
    #[error("{reference}: plain HTTP is only for a registry on loopback")]
    PlainHttp {
        /// The reference.
        reference: String,
    },
    /// The registry refused or failed the request, or could not be reached.
    #[error("{reference}: the registry request failed: {reason}")]
    Registry {
        /// The reference.
        reference: String,
        /// The registry's answer or why none came, without credentials.
        reason: String,
    },
    /// The registry does not hold what the reference names.
    #[error("{reference}: not found in the registry")]
    NotFound {
        /// The reference.
        reference: String,
    },
    /// The credentials were refused.
    #[error("{reference}: the registry refused the credentials")]
    Unauthorized {
        /// The reference.
        reference: String,
    },
    /// The operation did not finish within its deadline.
    #[error("{reference}: no answer within {seconds} s")]
    Deadline {
        /// The reference.
        reference: String,
        /// The deadline.
        seconds: u64,
    },
    /// The manifest is not a Wasm component artifact.
    #[error("{reference}: {reason}")]
    Layout {
        /// The reference.
        reference: String,
        /// What the manifest is instead.
        reason: String,
    },
    /// Bytes do not match the digest they were asked for by.
    #[error(
        "{reference}: the {what} does not match its digest (expected {expected}, got {actual})"
    )]
    DigestMismatch {
        /// The reference.
        reference: String,
        /// `manifest` or `layer`.
        what: &'static str,
        /// The digest asked for.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// A blob is larger than the cap.
    #[error("{reference}: the {what} is larger than the {cap}-byte cap")]
    TooLarge {
        /// The reference.
        reference: String,
        /// `manifest` or `layer`.
        what: &'static str,
        /// The cap.
        cap: u64,
    },
    /// Credentials could not be read.
    #[error("{path}: {reason}")]
    Credentials {
        /// The file.
        path: PathBuf,
        /// Why it could not be used.
        reason: String,
    },
    /// The store could not be read or written.
    #[error("component store {path}: {source}")]
    Store {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A stored component no longer matches its digest.
    #[error("component store {path}: the file does not match its digest {digest}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// The digest it is stored under.
        digest: String,
    },
}
