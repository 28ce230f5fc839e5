//! What no provider is granted: the environment and the network below
//! `wasi:http`. The imports still link (a component built with the standard
//! library asks for them), but answer "nothing" or "access denied", and the
//! attempt is noted for the provider's diagnostics.

use super::Shadowing;
use crate::sandbox::refusals::Refused;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::p2::bindings::sockets::ip_name_lookup::ResolveAddressStream;
use wasmtime_wasi::p2::bindings::sockets::network::{ErrorCode, IpAddressFamily, Network};
use wasmtime_wasi::p2::bindings::sockets::tcp::TcpSocket;
use wasmtime_wasi::p2::bindings::sockets::udp::UdpSocket;

/// The WASI version whose shims are replaced.
const WASI: &str = "0.2.12";

/// Replaces the environment and socket imports already linked by WASI.
pub(crate) fn shadow<T: Shadowing>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let result = shadow_all(linker);
    linker.allow_shadowing(false);
    result
}

fn shadow_all<T: Shadowing>(linker: &mut Linker<T>) -> wasmtime::Result<()> {
    linker
        .instance(&format!("wasi:cli/environment@{WASI}"))?
        .func_wrap(
            "get-environment",
            |store: StoreContextMut<'_, T>, (): ()| {
                store.data().refusals().record(
                    Refused::Environment,
                    "read its environment variables: none are granted".to_string(),
                );
                Ok((Vec::<(String, String)>::new(),))
            },
        )?;
    // Typed, so linking checks the guest imports each with the signature
    // WASI gives it: a component declaring another is refused when it is
    // loaded, with a diagnostic, instead of confusing the host at a call.
    let refuse = |store: StoreContextMut<'_, T>, what: &str| {
        store.data().refusals().record(
            Refused::Socket,
            format!("tried to {what}: refused, no network is granted"),
        );
    };
    linker
        .instance(&format!("wasi:sockets/tcp-create-socket@{WASI}"))?
        .func_wrap(
            "create-tcp-socket",
            move |store: StoreContextMut<'_, T>,
                  (_family,): (IpAddressFamily,)|
                  -> wasmtime::Result<(Result<Resource<TcpSocket>, ErrorCode>,)> {
                refuse(store, "open a TCP socket");
                Ok((Err(ErrorCode::AccessDenied),))
            },
        )?;
    linker
        .instance(&format!("wasi:sockets/udp-create-socket@{WASI}"))?
        .func_wrap(
            "create-udp-socket",
            move |store: StoreContextMut<'_, T>,
                  (_family,): (IpAddressFamily,)|
                  -> wasmtime::Result<(Result<Resource<UdpSocket>, ErrorCode>,)> {
                refuse(store, "open a UDP socket");
                Ok((Err(ErrorCode::AccessDenied),))
            },
        )?;
    linker
        .instance(&format!("wasi:sockets/ip-name-lookup@{WASI}"))?
        .func_wrap(
            "resolve-addresses",
            move |store: StoreContextMut<'_, T>,
                  (_network, _name): (Resource<Network>, String)|
                  -> wasmtime::Result<(Result<Resource<ResolveAddressStream>, ErrorCode>,)> {
                refuse(store, "resolve a host name");
                Ok((Err(ErrorCode::AccessDenied),))
            },
        )?;
    Ok(())
}
