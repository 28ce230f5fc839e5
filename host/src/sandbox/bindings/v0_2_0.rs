//! Bindings of `skillhost:provider@0.2.0` (`guest-sdk/wit/v0.2.0`), the
//! latest version: its types are the host's model of every provider call.

wasmtime::component::bindgen!({
    path: "../guest-sdk/wit/v0.2.0",
    world: "skill-provider",
    // A flood of invalidations stops the provider: this import may trap.
    imports: { "skillhost:provider/host.invalidate-provider": trappable },
});

pub(crate) use self::skillhost::provider::files;
pub(crate) use self::skillhost::provider::host as imports;
pub(crate) use self::skillhost::provider::types;
