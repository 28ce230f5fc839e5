//! Bindings of `skillhost:provider@0.1.0` (`guest-sdk/wit/v0.1.0`, the contract's one home).

wasmtime::component::bindgen!({
    path: "../guest-sdk/wit/v0.1.0",
    world: "skill-provider",
    // A flood of invalidations stops the provider: this import may trap.
    imports: { "skillhost:provider/host.invalidate-provider": trappable },
});

pub(crate) use self::skillhost::provider::files;
pub(crate) use self::skillhost::provider::host as imports;
pub(crate) use self::skillhost::provider::types;
