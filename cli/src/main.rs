//! The `skillhost` command line: a thin layer over the library, one file
//! per command under `commands/`.

mod args;
mod commands;
mod context;
mod logging;
mod output;

use clap::Parser;
use std::process::ExitCode;

// Everything crossing out of a provider is many small allocations, which a
// size-class allocator frees far more cheaply than the system's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    logging::init();
    match commands::run(args::Cli::parse()) {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            output::eprint_text(&format!("skillhost: {e:#}"));
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let kind = c
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}
