//! The first-party provider components, compiled from `providers/` by the
//! build script and embedded in the binary.

/// The local filesystem provider (`providers/local`).
pub static LOCAL_PROVIDER: &[u8] = include_bytes!(env!("SKILLHOST_LOCAL_PROVIDER_WASM"));

/// The bundled-skills provider (`providers/bundled`).
pub static BUNDLED_PROVIDER: &[u8] = include_bytes!(env!("SKILLHOST_BUNDLED_PROVIDER_WASM"));

/// The remote provider (`providers/remote`).
pub static REMOTE_PROVIDER: &[u8] = include_bytes!(env!("SKILLHOST_REMOTE_PROVIDER_WASM"));
