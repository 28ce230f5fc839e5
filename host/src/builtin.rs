//! The first-party provider components, compiled from `providers/` by the
//! build script and embedded in the binary.

/// The local filesystem provider (`providers/local`).
pub static LOCAL_PROVIDER: &[u8] = include_bytes!(env!("SKILLHOST_LOCAL_PROVIDER_WASM"));
