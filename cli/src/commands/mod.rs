//! One file per command; each is a thin call into the library.

mod bench;
mod catalog;
mod inject;
mod invoke;
mod load;
mod mirror;
mod serve;
mod touch;
mod validate;
mod watch;

use crate::args::{Cli, Command};
use crate::context::Ctx;
use anyhow::Result;
use std::process::ExitCode;

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let ctx = Ctx::new(cli.config.as_deref())?;
    match cli.command {
        Command::Catalog { sources, json } => catalog::run(&ctx, &sources, json),
        Command::Load {
            name,
            sources,
            json,
        } => load::run(&ctx, &name, &sources, json),
        Command::Validate { paths, json } => validate::run(&ctx, &paths, json),
        Command::Inject {
            session,
            sources,
            mode,
            agent,
        } => inject::run(&ctx, &session, &sources, mode, &agent),
        Command::Touch {
            session,
            cwd,
            paths,
            sources,
        } => touch::run(&ctx, &session, &cwd, &paths, &sources),
        Command::Invoke {
            name,
            args,
            caller,
            session_id,
            session,
            sources,
            json,
        } => invoke::run(
            &ctx,
            invoke::Args {
                name: &name,
                args: &args,
                caller,
                session_id: session_id.as_deref(),
                session: session.as_deref(),
                sources: &sources,
                json,
            },
        ),
        Command::Watch {
            sources,
            json,
            poll,
            poll_interval,
            window,
        } => watch::run(&ctx, &sources, json, poll.then_some(poll_interval), window),
        Command::Mirror { roots, out, json } => mirror::run(&ctx, &roots, &out, json),
        Command::Serve {
            sources,
            http,
            token_file,
            allow_hosts,
            window,
            page_size,
        } => serve::run(
            &ctx,
            serve::Args {
                sources: &sources,
                http: http.as_deref(),
                token_file: token_file.as_deref(),
                allow_hosts,
                window,
                page_size: usize::from(page_size),
            },
        ),
        Command::Bench {
            skills,
            rounds,
            latency,
            catalog,
            serve,
            page_size,
            reps,
            poll,
            json,
        } => bench::run(
            &ctx,
            bench::Args {
                skills,
                rounds,
                latency,
                catalog,
                serve,
                page_size,
                reps,
                poll,
                json,
            },
        ),
    }
}
