//! Provider components shipped as WebAssembly OCI artifacts: references
//! (`oci://REGISTRY/REPOSITORY:TAG` or `…@sha256:DIGEST`), the artifact
//! layout wasm-pkg-tools and the CNCF TAG Runtime "Wasm OCI Artifact" note
//! define (a `application/vnd.wasm.config.v0+json` config and one
//! `application/wasm` layer), pulling and pushing through a registry, and
//! the content-addressed store a pinned component runs from.
//!
//! Registry access runs in the host, never in a provider, and every answer
//! a registry gives is treated as hostile: a manifest must be the one
//! layout above and no larger than [`MAX_MANIFEST_BYTES`], a layer no larger
//! than the cap asked for and its descriptor's size, every digest is
//! checked here (not taken from a header), and each operation ends at its
//! deadline. Credentials never reach a log or an error message.

mod auth;
mod digest;
mod error;
mod layout;
mod reference;
mod registry;
mod store;

pub use auth::{Credentials, from_docker_config, from_token_file};
pub use digest::Digest;
pub use error::Error;
pub use layout::{
    CONFIG_MEDIA_TYPE, LAYER_MEDIA_TYPE, MANIFEST_MEDIA_TYPE, MAX_MANIFEST_BYTES, WasmManifest,
};
pub use reference::ComponentRef;
pub use registry::{Options, Pulled, Registry, Resolved};
pub use store::Store;
