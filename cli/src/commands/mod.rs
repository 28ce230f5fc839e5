//! One file per command; each is a thin call into the library.

mod add;
mod approve;
mod catalog;
mod conformance;
mod curate;
mod inject;
mod inspect;
mod invoke;
mod learn;
mod load;
mod mirror;
mod oci;
mod publish;
mod record;
mod serve;
mod touch;
mod trust;
mod update;
mod usage;
mod validate;
mod watch;

use crate::args::{Cli, Command, UsageCommand};
use crate::context::Ctx;
use anyhow::Result;
use std::process::ExitCode;

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> Result<ExitCode> {
    // Started only by the commands that read skills. Trusting a file is
    // about the file, describing or checking a component reads no
    // configuration, and a registry command adds to, updates or pushes
    // from a file without running any provider.
    let config = cli.config;
    let ctx = || Ctx::new(config.as_deref());
    match cli.command {
        Command::Add {
            reference,
            roots,
            origins,
            id,
            yes,
            registry,
            state,
            json,
        } => add::run(add::Args {
            config: config.as_deref(),
            reference: &reference,
            roots: &roots,
            origins: &origins,
            id: id.as_deref(),
            yes,
            registry: &registry,
            state: &state,
            json,
        }),
        Command::Update {
            id,
            check,
            yes,
            registry,
            state,
            json,
        } => update::run(update::Args {
            config: config.as_deref(),
            id: id.as_deref(),
            check,
            yes,
            registry: &registry,
            state: &state,
            json,
        }),
        Command::Publish {
            file,
            reference,
            registry,
            json,
        } => publish::run(&file, &reference, &registry, json),
        Command::Catalog {
            sources,
            json,
            view,
            session,
            search,
            page,
            listing,
            state,
        } => catalog::run(
            &ctx()?,
            catalog::Args {
                sources: &sources,
                json,
                view,
                session: session.as_deref(),
                search: search.as_deref(),
                page: page as usize,
                listing: &listing,
                state: &state,
            },
        ),
        Command::Approve {
            name,
            sources,
            json,
        } => approve::run(&ctx()?, &name, &sources, json),
        Command::Load {
            name,
            sources,
            json,
        } => load::run(&ctx()?, &name, &sources, json),
        Command::Validate {
            paths,
            profile,
            json,
        } => validate::run(&ctx()?, &paths, profile, json),
        Command::Inject {
            session,
            sources,
            mode,
            agent,
            state,
            listing,
            json,
        } => inject::run(
            &ctx()?,
            inject::Args {
                session: &session,
                sources: &sources,
                mode,
                agent: &agent,
                state: &state,
                listing: &listing,
                json,
            },
        ),
        Command::Touch {
            session,
            cwd,
            paths,
            sources,
            listing,
            json,
        } => touch::run(&ctx()?, &session, &cwd, &paths, &sources, &listing, json),
        Command::Invoke {
            name,
            args,
            caller,
            session_id,
            session,
            sources,
            json,
            state,
        } => invoke::run(
            &ctx()?,
            invoke::Args {
                name: &name,
                args: &args,
                caller,
                session_id: session_id.as_deref(),
                session: session.as_deref(),
                sources: &sources,
                json,
                state: &state,
            },
        ),
        Command::Watch {
            sources,
            json,
            poll,
            poll_interval,
            window,
            state,
        } => watch::run(
            &ctx()?,
            &sources,
            json,
            poll.then_some(poll_interval),
            window,
            &state,
        ),
        Command::Mirror { roots, out, json } => mirror::run(&ctx()?, &roots, &out, json),
        Command::Trust { file, json } => trust::run(file.as_deref(), json),
        Command::Inspect { file, json } => inspect::run(&file, json),
        command @ Command::Conformance { .. } => conformance::run(command),
        Command::Serve {
            sources,
            listing,
            http,
            token_file,
            allow_hosts,
            rmcp_listing,
            window,
            page_size,
            ttl_ms,
            state,
            json,
        } => serve::run(
            &ctx()?,
            serve::Args {
                sources: &sources,
                listing: &listing,
                http: http.as_deref(),
                token_file: token_file.as_deref(),
                allow_hosts,
                rmcp_listing,
                window,
                page_size: usize::from(page_size),
                ttl_ms,
                state: &state,
                json,
            },
        ),
        Command::Usage(command) => run_usage(&ctx()?, command),
    }
}

fn run_usage(ctx: &Ctx, command: UsageCommand) -> Result<ExitCode> {
    match command {
        UsageCommand::Usage {
            sources,
            state,
            json,
        } => usage::run(ctx, &sources, &state, json),
        UsageCommand::Curate {
            sources,
            state,
            json,
            archive,
            yes,
            restore,
            undo,
            pause,
            resume,
        } => curate::run(
            ctx,
            curate::Args {
                sources: &sources,
                state: &state,
                json,
                archive,
                yes,
                undo,
                restore: restore.as_deref(),
                pause,
                resume,
            },
        ),
        UsageCommand::Record {
            session,
            tools,
            logs,
            sources,
            state,
            json,
        } => match session {
            Some(session) => record::run(&session, &tools, &state, json),
            None => record::run_logs(ctx, &logs, &sources, &state, json),
        },
        UsageCommand::Learn {
            dry_run,
            min_confidence,
            into,
            logs,
            sources,
            state,
            json,
        } => learn::run(
            ctx,
            learn::Args {
                dry_run,
                min_confidence,
                into: &into,
                logs: &logs,
                sources: &sources,
                state: &state,
                json,
            },
        ),
    }
}
