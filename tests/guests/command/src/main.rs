//! A WASI command: a component that is valid WebAssembly and runs under
//! `wasmtime run`, but exports `wasi:cli/run` instead of a provider.

fn main() {
    println!("a command, not a provider");
}
