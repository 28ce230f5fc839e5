//! Host-side bindings of the provider contract (`wit/v0.1.0`).

wasmtime::component::bindgen!({
    path: "../wit/v0.1.0",
    world: "skill-provider",
    // A flood of invalidations stops the provider: this import may trap.
    imports: { "skillhost:provider/host.invalidate-provider": trappable },
});

pub use self::skillhost::provider::files;
pub use self::skillhost::provider::host as imports;
pub use self::skillhost::provider::types;
