//! What no provider is granted: the environment and the network below
//! `wasi:http`. The imports still link (a component built with the standard
//! library asks for them), but answer "nothing" or "access denied", and the
//! attempt is noted for the provider's diagnostics.

use crate::sandbox::state::HostState;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Val};

/// The WASI version whose shims are replaced.
const WASI: &str = "0.2.12";

/// Replaces the environment and socket imports already linked by WASI.
pub(crate) fn shadow(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let result = shadow_all(linker);
    linker.allow_shadowing(false);
    result
}

fn shadow_all(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker
        .instance(&format!("wasi:cli/environment@{WASI}"))?
        .func_wrap(
            "get-environment",
            |store: StoreContextMut<'_, HostState>, (): ()| {
                store
                    .data()
                    .refusals
                    .record("read its environment variables: none are granted".to_string());
                Ok((Vec::<(String, String)>::new(),))
            },
        )?;
    for (interface, function, what) in [
        (
            "tcp-create-socket",
            "create-tcp-socket",
            "open a TCP socket",
        ),
        (
            "udp-create-socket",
            "create-udp-socket",
            "open a UDP socket",
        ),
        ("ip-name-lookup", "resolve-addresses", "resolve a host name"),
    ] {
        linker
            .instance(&format!("wasi:sockets/{interface}@{WASI}"))?
            .func_new(function, move |store, _ty, _params, results| {
                store
                    .data()
                    .refusals
                    .record(format!("tried to {what}: refused, no network is granted"));
                // Every one of these returns result<_, error-code>.
                if let Some(slot) = results.first_mut() {
                    *slot =
                        Val::Result(Err(Some(Box::new(Val::Enum("access-denied".to_string())))));
                }
                Ok(())
            })?;
    }
    Ok(())
}
