//! The `skillhost` command line: a thin layer over the library.

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use skillhost::bench::{self, BenchOptions, LatencyOptions};
use skillhost::config::Config;
use skillhost::inject::Injector;
use skillhost::model::Catalog;
use skillhost::remote::RemoteSource;
use skillhost::render::RenderOptions;
use skillhost::session_log::{JsonlLog, MemoryLog, SessionLog};
use skillhost::watcher::{WatchMode, WatchOptions};
use skillhost::{Registry, Runtime, Scope, Sources, activation, invoke, mirror, roots, validate};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

/// Serve agent skills from sandboxed WebAssembly providers.
#[derive(Parser)]
#[command(name = "skillhost", version, about)]
struct Cli {
    /// The configuration file (default: skillhost.toml in the current
    /// folder, if there is one). Its providers are used when no --root is given.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// Where skills come from, for every command that reads them.
#[derive(clap::Args, Clone, Default)]
struct SourceArgs {
    /// A skills root, highest precedence first (default: the configured
    /// providers, else .agents/skills and .claude/skills here, then in your
    /// home folder).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<PathBuf>,
    /// A remote mirror (a folder or index.json URL served over HTTP); its
    /// skills are listed as LABEL:name, LABEL defaulting to the URL's host.
    #[arg(long = "remote", value_name = "[LABEL=]URL")]
    remotes: Vec<String>,
    /// Leave out the skills bundled with skillhost.
    #[arg(long)]
    no_bundled: bool,
}

/// What every command works with: the sandbox, and the configuration.
struct Ctx {
    runtime: Runtime,
    config: Option<Config>,
}

#[derive(Subcommand)]
enum Command {
    /// Print the merged catalog of the skill sources.
    Catalog {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the catalog as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a skill's body, read again from its source.
    Load {
        /// The skill's name (or an alias).
        name: String,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the skill and its body as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against the strict Agent Skills rules; exit 1 on any problem.
    Validate {
        /// A skill folder, a SKILL.md or flat .md file, or a folder of skills.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print the problems as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Append the catalog to an agent's session log (JSONL) if the model's
    /// view changed; print published, unchanged, tombstone, kept-incomplete
    /// or none.
    Inject {
        /// The session log (one JSON object per line).
        #[arg(long, value_name = "FILE")]
        session: PathBuf,
        #[command(flatten)]
        sources: SourceArgs,
        /// Full replacement (default) or only skills the agent was not told about.
        #[arg(long, value_enum, default_value_t = Mode::Replace)]
        mode: Mode,
        /// The agent, for delta mode.
        #[arg(long, value_name = "ID", default_value = "main")]
        agent: String,
    },
    /// Record files the agent touched; print the reminder naming skills that
    /// became available, if any.
    Touch {
        /// The session log.
        #[arg(long, value_name = "FILE")]
        session: PathBuf,
        /// The agent's working folder (paths are matched relative to it).
        #[arg(long, value_name = "DIR")]
        cwd: PathBuf,
        /// The files touched.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
    },
    /// Expand a skill for the user or the model: the text (inline) or the
    /// fork plan. A refusal exits 1 and says why.
    Invoke {
        /// The skill's name or an alias.
        name: String,
        /// Its arguments.
        #[arg(value_name = "ARG")]
        args: Vec<String>,
        /// Who invokes it.
        #[arg(long = "as", value_enum)]
        caller: CallerArg,
        /// The session id for ${SESSION_ID}.
        #[arg(long, value_name = "ID")]
        session_id: Option<String>,
        /// The session log, for skills activated or discovered in it.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the catalog, then again each time it changes (until interrupted).
    Watch {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print each catalog as one line of JSON.
        #[arg(long)]
        json: bool,
        /// Poll the folders instead of using the operating system's events.
        #[arg(long)]
        poll: bool,
        /// Polling interval in milliseconds.
        #[arg(long, default_value_t = 200, value_name = "MS")]
        poll_interval: u64,
        /// How long a burst of changes must be quiet before it counts, in milliseconds.
        #[arg(long, default_value_t = 10, value_name = "MS")]
        window: u64,
    },
    /// Publish skill roots as a static mirror any web server can serve: an
    /// index.json (a SEP-2640 skills/list result) and every skill's files.
    Mirror {
        /// A skills root, highest precedence first.
        #[arg(required = true, value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// The folder to write (created if needed; only files of earlier
        /// mirrors are ever removed from it).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Time the sandboxed provider against a native scan with the same parser,
    /// or (with --latency) how fast a file change reaches the catalog.
    Bench {
        /// Skills in the generated tree.
        #[arg(long, default_value_t = 1000)]
        skills: usize,
        /// Timed rounds.
        #[arg(long, default_value_t = 21)]
        rounds: usize,
        /// Measure change-to-catalog latency instead.
        #[arg(long)]
        latency: bool,
        /// Measure rendering and the session-log scan instead.
        #[arg(long, conflicts_with = "latency")]
        catalog: bool,
        /// Repetitions of each operation for --latency.
        #[arg(long, default_value_t = 50)]
        reps: usize,
        /// Use polling instead of native events for --latency.
        #[arg(long)]
        poll: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// How `inject` publishes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    /// A full replacement whenever the model's view changed.
    Replace,
    /// Only skills the agent was not yet told about.
    Delta,
}

/// Who invokes a skill.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CallerArg {
    /// The user, by a slash command.
    User,
    /// The model, through the Skill tool.
    Model,
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SKILLHOST_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,notify=error")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(code) => code,
        // A reader that stops early (`| head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skillhost: {e:#}");
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

/// A registry over the given sources, with the usual roots of the current
/// folder when no root is given.
fn registry(ctx: &Ctx, sources: &SourceArgs) -> Result<Registry> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    registry_at(ctx, sources, &cwd)
}

/// A registry over the given roots, else the configured providers, else the
/// usual roots of `cwd`; then the remote mirrors; then the bundled skills.
fn registry_at(ctx: &Ctx, sources: &SourceArgs, cwd: &std::path::Path) -> Result<Registry> {
    let runtime = &ctx.runtime;
    let remotes = sources
        .remotes
        .iter()
        .map(|arg| RemoteSource::from_arg(arg))
        .collect::<Result<Vec<_>, _>>()?;
    let registry = if !sources.roots.is_empty() {
        runtime.registry_for_sources(&Sources {
            roots: sources.roots.clone(),
            remotes,
            bundled: !sources.no_bundled,
        })?
    } else if let Some(config) = &ctx.config {
        let registry = config.registry(runtime)?;
        for remote in &remotes {
            registry.add(runtime.remote_provider(remote)?);
        }
        registry
    } else {
        let registry = Registry::new();
        for (root, scope) in roots::default_roots(cwd, std::env::home_dir().as_deref()) {
            registry.add(runtime.local_provider_in(root, scope)?);
        }
        for remote in &remotes {
            registry.add(runtime.remote_provider(remote)?);
        }
        registry.add(runtime.bundled_provider()?);
        registry
    };
    if sources.no_bundled {
        for provider in registry.providers() {
            if provider.scope() == Scope::Bundled {
                registry.remove(provider.id());
            }
        }
    }
    Ok(registry)
}

/// The registry of a session: its sources, then the nested roots the
/// session discovered (lowest precedence).
fn session_registry(
    ctx: &Ctx,
    sources: &SourceArgs,
    cwd: &std::path::Path,
    log: &dyn SessionLog,
) -> Result<Registry> {
    let registry = registry_at(ctx, sources, cwd)?;
    for root in activation::discovered_roots(log) {
        registry.add(ctx.runtime.local_provider_in(root, Scope::Project)?);
    }
    Ok(registry)
}

fn print_json(value: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

fn run(cli: Cli) -> Result<ExitCode> {
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let config = Config::find(cli.config.as_deref(), &cwd)?;
    let ctx = Ctx { runtime, config };
    let runtime = &ctx.runtime;
    match cli.command {
        Command::Catalog { sources, json } => {
            let catalog = registry(&ctx, &sources)?.snapshot();
            if json {
                print_json(&catalog.to_json())?;
            } else {
                print_catalog(&catalog)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Load {
            name,
            sources,
            json,
        } => {
            let doc = registry(&ctx, &sources)?.load(&name)?;
            if json {
                print_json(&doc.to_json())?;
            } else {
                let mut out = std::io::stdout().lock();
                out.write_all(doc.body.as_bytes())?;
                if !doc.body.ends_with('\n') {
                    writeln!(out)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate { paths, json } => {
            let report = validate::validate_paths(runtime, &paths)?;
            if json {
                print_json(&serde_json::json!({
                    "checked": report.checked,
                    "problems": report.problems.iter().map(validate::Problem::to_json).collect::<Vec<_>>(),
                }))?;
            } else {
                let mut out = std::io::stdout().lock();
                for problem in &report.problems {
                    writeln!(out, "{problem}")?;
                }
                if report.problems.is_empty() {
                    writeln!(out, "{} skill(s) valid", report.checked.len())?;
                }
            }
            Ok(if report.problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Inject {
            session,
            sources,
            mode,
            agent,
        } => {
            let mut log = JsonlLog::open(&session)?;
            let cwd = std::env::current_dir().context("cannot read the current folder")?;
            let catalog = session_registry(&ctx, &sources, &cwd, &log)?.snapshot();
            let injector = Injector::default();
            let outcome = match mode {
                Mode::Replace => injector.replace(&catalog, &mut log)?,
                Mode::Delta => injector.delta(&catalog, &agent, &mut log)?,
            };
            println!("{}", outcome.as_str());
            Ok(ExitCode::SUCCESS)
        }
        Command::Touch {
            session,
            cwd,
            paths,
            sources,
        } => {
            let mut log = JsonlLog::open(&session)?;
            let cwd = std::fs::canonicalize(&cwd)
                .with_context(|| format!("{}: not a folder", cwd.display()))?;
            let touched: Vec<PathBuf> = paths
                .iter()
                .map(|p| {
                    let p = if p.is_absolute() {
                        p.clone()
                    } else {
                        cwd.join(p)
                    };
                    std::fs::canonicalize(&p).unwrap_or(p)
                })
                .collect();
            let registry = session_registry(&ctx, &sources, &cwd, &log)?;
            let activation = activation::touch(
                runtime,
                &registry,
                &cwd,
                &touched,
                &mut log,
                RenderOptions::default(),
            )?;
            if let Some(reminder) = activation.reminder {
                println!("{reminder}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Invoke {
            name,
            args,
            caller,
            session_id,
            session,
            sources,
            json,
        } => {
            let cwd = std::env::current_dir().context("cannot read the current folder")?;
            let log: Box<dyn SessionLog> = match &session {
                Some(path) => Box::new(JsonlLog::open(path)?),
                None => Box::new(MemoryLog::default()),
            };
            let registry = session_registry(&ctx, &sources, &cwd, log.as_ref())?;
            let request = invoke::Request {
                name: &name,
                args: &args,
                caller: match caller {
                    CallerArg::User => invoke::Caller::User,
                    CallerArg::Model => invoke::Caller::Model,
                },
                session_id: session_id.as_deref().unwrap_or_default(),
                max_steps: None,
            };
            let invocation =
                match invoke::invoke(&registry, &request, &activation::activated(log.as_ref())) {
                    Ok(invocation) => invocation,
                    Err(
                        e @ (skillhost::Error::Refused { .. }
                        | skillhost::Error::UnknownSkill { .. }),
                    ) => {
                        eprintln!("skillhost: {e}");
                        return Ok(ExitCode::FAILURE);
                    }
                    Err(e) => return Err(e.into()),
                };
            match (&invocation, json) {
                (_, true) | (invoke::Invocation::Fork(_), false) => {
                    print_json(&invocation.to_json())?
                }
                (invoke::Invocation::Inline { text, .. }, false) => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(text.as_bytes())?;
                    if !text.ends_with('\n') {
                        writeln!(out)?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Watch {
            sources,
            json,
            poll,
            poll_interval,
            window,
        } => {
            let mode = if poll {
                WatchMode::Poll(Duration::from_millis(poll_interval.max(1)))
            } else {
                WatchMode::Native
            };
            let options = WatchOptions {
                mode,
                window: Duration::from_millis(window),
                ..WatchOptions::default()
            };
            watch(&registry(&ctx, &sources)?, options, json)
        }
        Command::Mirror { roots, out, json } => {
            let report = mirror::write(runtime, &roots, &out)?;
            for warning in &report.warnings {
                eprintln!("{warning}");
            }
            if json {
                print_json(&serde_json::json!({
                    "skills": report.skills,
                    "written": report.written,
                    "unchanged": report.unchanged,
                    "removed": report.removed,
                    "warnings": report.warnings.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
                }))?;
            } else {
                println!(
                    "published {} skill(s) to {}: {} file(s) written, {} unchanged, {} removed",
                    report.skills,
                    out.display(),
                    report.written.len(),
                    report.unchanged,
                    report.removed.len()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            catalog: true,
            rounds,
            json,
            ..
        } => {
            let report = bench::catalog(10_000, 100_000, rounds.max(1));
            if json {
                print_json(&report.to_json())?;
            } else {
                print!("{}", report.render());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            latency: true,
            reps,
            poll,
            json,
            ..
        } => {
            let mode = if poll {
                WatchMode::Poll(Duration::from_millis(50))
            } else {
                WatchMode::Native
            };
            let options = LatencyOptions {
                reps: reps.max(1),
                mode,
                ..LatencyOptions::default()
            };
            let report = bench::latency(runtime, options)?;
            if json {
                print_json(&report.to_json())?;
            } else {
                print!("{}", report.render());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            skills,
            rounds,
            json,
            ..
        } => {
            let report = bench::run(
                runtime,
                BenchOptions {
                    skills,
                    rounds: rounds.max(1),
                },
            )?;
            if json {
                print_json(&report.to_json())?;
            } else {
                print!("{}", report.render());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints the catalog now and after every change that alters it. Runs until
/// interrupted or until the reader goes away.
fn watch(registry: &Registry, options: WatchOptions, json: bool) -> Result<ExitCode> {
    registry.watch(options)?;
    let (tx, rx) = mpsc::channel();
    let _subscription = registry.subscribe(move || {
        let _ = tx.send(());
    });
    let mut last: Option<String> = None;
    loop {
        let catalog = registry.snapshot();
        let rendered = if json {
            let mut line = serde_json::to_string(&catalog.to_json())?;
            line.push('\n');
            line
        } else {
            render_catalog(&catalog) + "\n"
        };
        if last.as_ref() != Some(&rendered) {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes())?;
            out.flush()?;
            last = Some(rendered);
        }
        // An incomplete catalog is asked again soon: its sources are retried.
        let wait = if catalog.complete {
            Duration::from_secs(3600)
        } else {
            Duration::from_millis(500)
        };
        match rx.recv_timeout(wait) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => while rx.try_recv().is_ok() {},
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(ExitCode::SUCCESS),
        }
    }
}

fn print_catalog(catalog: &Catalog) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(render_catalog(catalog).as_bytes())?;
    Ok(())
}

/// The human-readable catalog: one line per skill, then diagnostics.
fn render_catalog(catalog: &Catalog) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = catalog
        .skills
        .iter()
        .map(|s| s.name().chars().count())
        .max()
        .unwrap_or(0);
    for skill in &catalog.skills {
        let description = skill.description().unwrap_or("(no description)");
        let first_line = description.lines().next().unwrap_or_default();
        let _ = writeln!(out, "{:width$}  {first_line}", skill.name());
    }
    if !catalog.diagnostics.is_empty() {
        out.push('\n');
        for d in &catalog.diagnostics {
            let _ = writeln!(out, "{d}");
        }
    }
    let _ = writeln!(
        out,
        "\n{} skill(s){}",
        catalog.skills.len(),
        if catalog.complete {
            ""
        } else {
            " (incomplete: some sources could not be read; showing their last complete view)"
        }
    );
    out
}
